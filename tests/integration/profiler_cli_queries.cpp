#include "profiler_cli_queries.hpp"

#include <simdjson.h>

#include <algorithm>
#include <cstdlib>

namespace sprof::test {

std::string log_value_after(const std::string& log, const std::string& prefix) {
  const auto at = log.find(prefix);
  if (at == std::string::npos) return {};
  const auto start = at + prefix.size();
  return log.substr(start, log.find_first_of(" \n", start) - start);
}

int thread_index_of(const std::string& info_json, int64_t tid) {
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (parser.parse(info_json).get(doc) != simdjson::SUCCESS) return -1;
  simdjson::dom::array processes;
  if (doc["processes"].get(processes) != simdjson::SUCCESS) return -1;
  for (auto p : processes) {
    simdjson::dom::array threads;
    if (p["threads"].get(threads) != simdjson::SUCCESS) continue;
    for (auto t : threads) {
      int64_t t_tid = 0;
      std::string_view handle;
      if (t["tid"].get(t_tid) == simdjson::SUCCESS && t_tid == tid &&
          t["threadHandle"].get(handle) == simdjson::SUCCESS && handle.size() > 2) {
        return std::atoi(std::string(handle.substr(2)).c_str());
      }
    }
  }
  return -1;
}

int thread_index_named(const std::string& info_json, const std::string& name) {
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (parser.parse(info_json).get(doc) != simdjson::SUCCESS) return -1;
  for (auto p : doc["processes"].get_array()) {
    for (auto t : p["threads"].get_array()) {
      std::string_view t_name, handle;
      if (t["name"].get(t_name) == simdjson::SUCCESS && t_name == name &&
          t["threadHandle"].get(handle) == simdjson::SUCCESS) {
        return std::atoi(std::string(handle.substr(2)).c_str());
      }
    }
  }
  return -1;
}

std::vector<int64_t> process_pids(const std::string& info_json) {
  std::vector<int64_t> pids;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  simdjson::dom::array processes;
  if (parser.parse(info_json).get(doc) != simdjson::SUCCESS ||
      doc["processes"].get(processes) != simdjson::SUCCESS) {
    return pids;
  }
  for (auto p : processes) {
    std::string_view pid;
    if (p["pid"].get(pid) == simdjson::SUCCESS)
      pids.push_back(std::atoll(std::string(pid).c_str()));
  }
  return pids;
}

std::vector<ThreadHandle> all_threads(const std::string& info_json) {
  std::vector<ThreadHandle> out;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  simdjson::dom::array processes;
  if (parser.parse(info_json).get(doc) != simdjson::SUCCESS ||
      doc["processes"].get(processes) != simdjson::SUCCESS) {
    return out;
  }
  for (auto p : processes) {
    std::string_view pid;
    simdjson::dom::array threads;
    if (p["pid"].get(pid) != simdjson::SUCCESS || p["threads"].get(threads) != simdjson::SUCCESS) {
      continue;
    }
    for (auto t : threads) {
      ThreadHandle h;
      h.pid = std::atoll(std::string(pid).c_str());
      std::string_view handle;
      if (t["tid"].get(h.tid) != simdjson::SUCCESS ||
          t["threadHandle"].get(handle) != simdjson::SUCCESS || handle.size() <= 2) {
        continue;
      }
      h.index = std::atoi(std::string(handle.substr(2)).c_str());
      out.push_back(h);
    }
  }
  return out;
}

std::map<std::string, FunctionWeight> function_weights(const std::string& functions_json) {
  std::map<std::string, FunctionWeight> out;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  simdjson::dom::array functions;
  if (parser.parse(functions_json).get(doc) != simdjson::SUCCESS ||
      doc["functions"].get(functions) != simdjson::SUCCESS) {
    return out;
  }
  for (auto f : functions) {
    std::string_view name;
    if (f["nameWithLibrary"].get(name) != simdjson::SUCCESS) continue;
    double self = 0, total = 0;  // 0 where a weight is missing
    if (f["selfSamples"].get(self) != simdjson::SUCCESS) self = 0;
    if (f["totalSamples"].get(total) != simdjson::SUCCESS) total = 0;
    const auto [it, first] = out.try_emplace(std::string(name));
    FunctionWeight& w = it->second;
    if (!first) ++w.functions;
    w.self += static_cast<int64_t>(self);
    w.total += static_cast<int64_t>(total);
    w.largest_total = std::max(w.largest_total, static_cast<int64_t>(total));
  }
  return out;
}

int64_t total_of(const std::map<std::string, FunctionWeight>& weights, const std::string& name) {
  const auto it = weights.find(name);
  return it == weights.end() ? 0 : it->second.total;
}

int64_t self_of(const std::map<std::string, FunctionWeight>& weights, const std::string& name) {
  const auto it = weights.find(name);
  return it == weights.end() ? 0 : it->second.self;
}

std::set<std::string> top_function_names(const std::string& samples_json) {
  std::set<std::string> names;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (parser.parse(samples_json).get(doc) != simdjson::SUCCESS) return names;
  simdjson::dom::array top;
  if (doc["topFunctionsByTotal"].get(top) != simdjson::SUCCESS) return names;
  for (auto f : top) {
    std::string_view name;
    if (f["name"].get(name) == simdjson::SUCCESS) names.emplace(name);
  }
  return names;
}

FunctionTotals function_totals(const std::string& samples_json) {
  FunctionTotals totals;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (parser.parse(samples_json).get(doc) != simdjson::SUCCESS) return totals;
  simdjson::dom::array top;
  if (doc["topFunctionsByTotal"].get(top) == simdjson::SUCCESS) {
    for (auto f : top) {
      std::string_view name;
      int64_t total = 0;
      if (f["name"].get(name) == simdjson::SUCCESS &&
          f["totalSamples"].get(total) == simdjson::SUCCESS) {
        totals.total_samples.emplace(name, total);
      }
    }
  }
  if (doc["categoryBreakdown"]["totalSamples"].get(totals.samples) != simdjson::SUCCESS) {
    totals.samples = -1;
  }
  return totals;
}

std::vector<MarkerView> flat_markers(const std::string& markers_json) {
  std::vector<MarkerView> out;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (parser.parse(markers_json).get(doc) != simdjson::SUCCESS) return out;
  simdjson::dom::array markers;
  if (doc["flatMarkers"].get(markers) != simdjson::SUCCESS) return out;
  for (auto m : markers) {
    MarkerView v;
    std::string_view text;
    if (m["name"].get(text) == simdjson::SUCCESS) v.name = text;
    if (m["markerType"].get(text) == simdjson::SUCCESS) v.type = text;
    if (m["category"].get(text) == simdjson::SUCCESS) v.category = text;
    if (m["label"].get(text) == simdjson::SUCCESS) v.label = text;
    double number = 0;
    if (m["start"].get(number) == simdjson::SUCCESS) v.start = number;
    if (m["duration"].get(number) == simdjson::SUCCESS) v.duration = number;
    out.push_back(std::move(v));
  }
  return out;
}

std::optional<MarkerView> marker_named(const std::vector<MarkerView>& markers,
                                       const std::string& name) {
  for (const auto& m : markers) {
    if (m.name == name) return m;
  }
  return std::nullopt;
}

std::string join_lines(const std::set<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += n + "\n";
  return out;
}

}  // namespace sprof::test
