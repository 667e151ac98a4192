// tests/integration/profiler_cli_queries.hpp
//
// Reading what profiler-cli prints (`profile info`, `thread samples`, `thread markers` with
// --json) and what `sprof record` logs, for integration tests that go through the Firefox
// Profiler's own code.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace sprof::test {

// The URL after `prefix` in a log ("sprof: open <url>"), or "".
std::string log_value_after(const std::string& log, const std::string& prefix);

// The thread handle index ("t-N") of the thread with `tid` in `profile info --all --json`, or -1.
int thread_index_of(const std::string& info_json, int64_t tid);

// The thread handle index ("t-N") of the (first) thread called `name`, or -1.
int thread_index_named(const std::string& info_json, const std::string& name);

// The pids of the processes in `profile info --all --json` (which prints them as strings).
std::vector<int64_t> process_pids(const std::string& info_json);

struct ThreadHandle {
  int64_t pid = 0;
  int64_t tid = 0;
  int index = -1;  // t-N
};

// Every thread of `profile info --all --json`.
std::vector<ThreadHandle> all_threads(const std::string& info_json);

struct FunctionWeight {
  int64_t self = 0;
  int64_t total = 0;
  // The Firefox Profiler keeps one function per name and file, and an inlined function's file is
  // that of its sampled line, so one name may be several of its functions (stl_algo.h and
  // predefined_ops.h for the same inlined std:: template). Their self weights add up exactly;
  // `total` is the sum of their totals, which counts a sample that holds two of them twice, so
  // the weight of the samples under the name lies between `largest_total` and `total`.
  int functions = 1;
  int64_t largest_total = 0;
};

// `thread functions --json`'s functions by "lib!function", with their self and total weights
// (bytes for the allocation strategies), the functions of one name added up.
std::map<std::string, FunctionWeight> function_weights(const std::string& functions_json);
// The total and self weight of "lib!function" in `weights`; 0 when it is not there.
int64_t total_of(const std::map<std::string, FunctionWeight>& weights, const std::string& name);
int64_t self_of(const std::map<std::string, FunctionWeight>& weights, const std::string& name);

// One name per line, for failure messages.
std::string join_lines(const std::set<std::string>& names);

// Every function name in `thread samples --json`'s top functions ("lib!function").
std::set<std::string> top_function_names(const std::string& samples_json);

// `thread samples --json`'s top functions by total ("lib!function" -> samples in it or below
// it), and its total sample count.
struct FunctionTotals {
  std::map<std::string, int64_t> total_samples;
  int64_t samples = 0;
};
FunctionTotals function_totals(const std::string& samples_json);

struct MarkerView {
  std::string name;
  std::string type;  // markerType; "" without one
  std::string category;
  std::string label;
  double start = 0;
  std::optional<double> duration;  // intervals only
};

// `thread markers --list --json`'s flatMarkers.
std::vector<MarkerView> flat_markers(const std::string& markers_json);

// The first marker named `name`, if any.
std::optional<MarkerView> marker_named(const std::vector<MarkerView>& markers,
                                       const std::string& name);

}  // namespace sprof::test
