#include "sprof/report/json_report.hpp"

#include <cmath>

#include "sprof/core/json_writer.hpp"

namespace sprof::report {

namespace {

double rounded(double percent_value) { return std::round(percent_value * 100) / 100; }

void write_function(JsonWriter& w, const Function& f) {
  w.field("name", f.name).field("module", f.module);
}

void write_functions(JsonWriter& w, const ReportProfile& profile, const FunctionStats& stats,
                     const ViewOptions& options) {
  w.key("functions").begin_array();
  size_t written = 0;
  for (const FunctionStat& s : stats.functions) {
    if (options.limit != 0 && written == options.limit) break;
    const uint64_t key = options.sort == SortKey::kSelf ? s.self : s.total;
    if (percent(key, stats.weight) < options.min_percent) break;
    ++written;
    w.begin_object();
    write_function(w, profile.functions[s.function]);
    w.field("self", s.self).field("total", s.total);
    w.key("selfPercent").value(rounded(percent(s.self, stats.weight)), 2);
    w.key("totalPercent").value(rounded(percent(s.total, stats.weight)), 2);
    w.end_object();
  }
  w.end_array();
}

void write_nodes(JsonWriter& w, const ReportProfile& profile, const CallTree& tree,
                 const std::vector<uint32_t>& nodes, size_t depth, const ViewOptions& options) {
  w.begin_array();
  if (options.max_depth == 0 || depth < options.max_depth) {
    for (uint32_t n : nodes) {
      const CallNode& node = tree.nodes[n];
      const double share = percent(node.total, tree.weight);
      if (share < options.min_percent) continue;
      w.begin_object();
      write_function(w, profile.functions[node.function]);
      w.field("total", node.total).field("self", node.self);
      w.key("totalPercent").value(rounded(share), 2);
      w.key("children");
      write_nodes(w, profile, tree, node.children, depth + 1, options);
      w.end_object();
    }
  }
  w.end_array();
}

const char* view_name(View view) {
  switch (view) {
    case View::kFunctions: return "functions";
    case View::kTree: return "tree";
    case View::kCallers: return "callers";
  }
  return "functions";
}

}  // namespace

void write_report_summary(JsonWriter& w, const ReportProfile& profile, const ReportSummary& s) {
  w.key("profile").begin_object();
  w.field("name", s.name).field("product", profile.meta.product);
  w.key("durationMs").value(s.duration_ms, 3);
  w.field("event", s.event).field("samples", s.samples).field("idleSamples", s.idle_samples);
  w.key("lostSamples").value(s.lost_samples);
  w.field("processes", s.processes).field("threads", s.threads);
  w.end_object();
}

std::string report_json(const ReportProfile& profile, const ReportSummary& summary,
                        const std::vector<Section>& sections, const ViewOptions& options) {
  JsonWriter w;
  w.begin_object();
  write_report_summary(w, profile, summary);
  w.field("view", view_name(options.view));
  w.key("sections").begin_array();
  for (const Section& section : sections) {
    w.begin_object();
    w.key("threads").begin_array();
    for (const ReportThread* t : section.threads) {
      w.begin_object().field("name", t->name).field("tid", t->tid).field("pid", t->pid);
      w.field("processName", t->process_name).field("samples", t->samples);
      w.field("idleSamples", t->idle_samples).end_object();
    }
    w.end_array();
    if (options.view == View::kFunctions) {
      w.field("weight", section.functions.weight);
      write_functions(w, profile, section.functions, options);
    } else {
      w.field("weight", section.tree.weight);
      w.key("tree");
      write_nodes(w, profile, section.tree, section.tree.roots, 0, options);
    }
    w.end_object();
  }
  w.end_array();
  w.end_object();
  return w.take() + "\n";
}

}  // namespace sprof::report
