#include "stat_json.hpp"

#include "sprof/core/json_writer.hpp"

namespace sprof::cli {

std::string format_stat_json(const std::vector<std::string>& command, const std::vector<int>& pids,
                             const StatSummary& summary,
                             const std::vector<recorder::Counts>& runs) {
  JsonWriter w;
  w.begin_object();
  w.key("command").begin_array();
  for (const auto& arg : command) w.value(arg);
  w.end_array();
  w.key("pids").begin_array();
  for (int pid : pids) w.value(pid);
  w.end_array();
  w.field("runs", summary.runs);
  const recorder::Counts* last = runs.empty() ? nullptr : &runs.back();
  if (last != nullptr && !command.empty()) {
    w.field("exit_code", last->status.shell_code());
  } else {
    w.key("exit_code").null();
  }
  w.field("user_only", last != nullptr && last->user_only);
  w.key("elapsed_s").begin_object();
  w.key("mean").value(summary.wall_s.mean, 9);
  w.key("rel_stddev_pct").value(summary.wall_s.rel_stddev_pct, 3);
  w.end_object();

  w.key("counters").begin_array();
  for (const auto& c : summary.counters) {
    w.begin_object();
    w.field("event", recorder::counter_event_name(c.event));
    w.field("unit", c.event == recorder::CounterEvent::kTaskClock ? "ns" : "");
    w.field("counted", c.counted);
    w.key("value").value(c.value.mean, 3);
    w.key("rel_stddev_pct").value(c.value.rel_stddev_pct, 3);
    w.key("running_pct").value(c.running_pct, 3);
    if (c.metric) {
      w.key("metric").begin_object();
      w.key("value").value(c.metric->value, 6);
      w.field("unit", c.metric->unit);
      w.end_object();
    } else {
      w.key("metric").null();
    }
    w.end_object();
  }
  w.end_array();

  w.key("not_supported").begin_array();
  if (last != nullptr) {
    for (const auto& m : last->missing) {
      w.begin_object();
      w.field("event", recorder::counter_event_name(m.event));
      w.field("reason", m.reason);
      w.end_object();
    }
  }
  w.end_array();

  // Per thread: one run only (a thread of one run is not the same thread in the next).
  w.key("threads").begin_array();
  if (last != nullptr && summary.runs == 1) {
    for (const auto& t : last->threads) {
      w.begin_object();
      w.field("pid", t.pid);
      w.field("tid", t.tid);
      w.field("name", t.name);
      w.key("counters").begin_object();
      for (size_t e = 0; e < last->events.size(); ++e) {
        w.key(recorder::counter_event_name(last->events[e])).value(scaled_value(t.readings[e]), 3);
      }
      w.end_object();
      w.end_object();
    }
  }
  w.end_array();
  w.field("lost_thread_records", last != nullptr ? last->lost_records : uint64_t{0});
  w.end_object();
  return w.take() + "\n";
}

}  // namespace sprof::cli
