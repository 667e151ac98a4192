#include "sprof/profile/processed_writer.hpp"

#include <map>
#include <optional>

#include "gecko_libs.hpp"
#include "json_file.hpp"
#include "meta_writer.hpp"
#include "processed_thread.hpp"
#include "sprof/core/json_writer.hpp"

namespace sprof::profile {

namespace {

// The Gecko version of the data this profile was processed from (informational in a processed
// profile; the front end does not check it).
constexpr int kSourceGeckoVersion = 36;

void write_meta(JsonWriter& w, const Meta& meta) {
  w.key("meta").begin_object();
  w.field("preprocessedProfileVersion", kProcessedProfileVersion);
  w.field("version", kSourceGeckoVersion);
  // The symbols are in the file: the front end asks no symbol server.
  w.field("symbolicated", true);
  w.field("interval", meta.interval_ms);
  w.field("startTime", meta.start_time_ms);
  w.field("startTimeAsClockMonotonicNanosecondsSinceBoot", meta.start_time_monotonic_ns);
  // Not yet part of version 42; newer front ends use it for the zoomable range, older ones
  // ignore it.
  if (meta.profiling_start_ms) w.field("profilingStartTime", *meta.profiling_start_ms);
  if (meta.profiling_end_ms) w.field("profilingEndTime", *meta.profiling_end_ms);
  w.field("stackwalk", 1).field("debug", false);
  detail::write_shared_meta(w, meta);
  w.end_object();
}

// Profile-level libs: every lib of every process, deduplicated by (debugName, breakpadId), the
// first occurrence naming it (as the front end merges them).
struct GlobalLibs {
  std::vector<Library> libs;
  std::vector<detail::ProcessLibs> processes;
};

GlobalLibs collect_libs(const Profile& profile, const ProfileSymbols& symbols) {
  GlobalLibs out;
  std::map<ModuleKey, uint32_t> index_of;
  for (const Process& process : profile.processes) {
    detail::ProcessLibs p;
    p.libs = detail::normalize_libs(process.libs);
    for (const Library& lib : p.libs) {
      ModuleKey key{lib.debug_name, lib.breakpad_id};
      p.symbols.push_back(symbols.find_module(key));
      auto [it, inserted] =
          index_of.emplace(std::move(key), static_cast<uint32_t>(out.libs.size()));
      if (inserted) out.libs.push_back(lib);
      p.global_index.push_back(it->second);
    }
    out.processes.push_back(std::move(p));
  }
  return out;
}

// The thread a process's counters belong to: its "GeckoMain" (as Gecko processing picks it),
// else its first thread; nullopt for a process without threads.
std::optional<size_t> counter_thread(const Process& process, size_t first_thread) {
  if (process.threads.empty()) return std::nullopt;
  for (size_t i = 0; i < process.threads.size(); ++i) {
    if (process.threads[i].name == "GeckoMain") return first_thread + i;
  }
  return first_thread;
}

// Version 42's counters: one sample group each, owned by a thread of the flat `threads` list.
void write_counters(JsonWriter& w, const Profile& profile,
                    const std::vector<size_t>& first_thread) {
  bool any = false;
  for (const Process& process : profile.processes) any = any || !process.counters.empty();
  if (!any) return;
  w.key("counters").begin_array();
  for (size_t p = 0; p < profile.processes.size(); ++p) {
    const Process& process = profile.processes[p];
    const std::optional<size_t> main_thread = counter_thread(process, first_thread[p]);
    if (!main_thread) continue;
    for (const Counter& c : process.counters) {
      if (c.samples.empty()) continue;  // the Gecko processing drops these too
      w.begin_object();
      w.field("name", c.name).field("category", c.category).field("description", c.description);
      w.field("pid", process.pid).field("mainThreadIndex", *main_thread);
      w.key("sampleGroups").begin_array().begin_object().field("id", 0);
      w.key("samples").begin_object();
      w.key("time").begin_array();
      for (const CounterSample& s : c.samples) w.value(s.time_ms);
      w.end_array();
      w.key("number").begin_array();
      for (const CounterSample& s : c.samples) w.value(s.number);
      w.end_array();
      w.key("count").begin_array();
      for (const CounterSample& s : c.samples) w.value(s.count);
      w.end_array();
      w.field("length", c.samples.size());
      w.end_object();
      w.end_object().end_array();
      w.end_object();
    }
  }
  w.end_array();
}

}  // namespace

void write_processed_json(const Profile& profile, const ProfileSymbols& symbols,
                          const std::function<void(std::string_view)>& sink) {
  const GlobalLibs libs = collect_libs(profile, symbols);
  JsonWriter w(sink);
  w.begin_object();
  write_meta(w, profile.meta);
  w.key("libs").begin_array();
  for (const Library& lib : libs.libs) {
    w.begin_object();
    detail::write_lib_identity(w, lib);
    w.end_object();
  }
  w.end_array();
  w.key("pages").begin_array().end_array();
  // Every thread of every process, flat: a processed profile groups threads by pid.
  w.key("threads").begin_array();
  std::vector<size_t> first_thread;  // per process: its first thread's index in `threads`
  size_t thread_index = 0;
  for (size_t p = 0; p < profile.processes.size(); ++p) {
    const Process& process = profile.processes[p];
    first_thread.push_back(thread_index);
    for (const Thread& thread : process.threads) {
      const detail::ProcessedThread tables =
          detail::build_processed_thread(thread, libs.processes[p]);
      detail::write_processed_thread(w, thread, process, tables);
      ++thread_index;
    }
  }
  w.end_array();
  write_counters(w, profile, first_thread);
  w.end_object();
  w.flush();
}

std::string processed_json_string(const Profile& profile, const ProfileSymbols& symbols) {
  std::string out;
  write_processed_json(profile, symbols, [&](std::string_view chunk) { out.append(chunk); });
  return out;
}

Result<uint64_t> write_processed_file(const Profile& profile, const ProfileSymbols& symbols,
                                      const std::string& path) {
  return detail::write_json_file(path, [&](const std::function<void(std::string_view)>& sink) {
    write_processed_json(profile, symbols, sink);
  });
}

}  // namespace sprof::profile
