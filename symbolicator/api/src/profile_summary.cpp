#include "sprof/api/profile_summary.hpp"

#include <simdjson.h>

#include <set>

namespace sprof::api {

namespace {

using simdjson::dom::array;
using simdjson::dom::element;
using simdjson::dom::object;

// Taking the simdjson_result (not an element) keeps a missing key an error code: converting it
// to an element would throw.
using Lookup = simdjson::simdjson_result<element>;

uint64_t count_of(Lookup value) {
  int64_t n = 0;
  return value.get(n) == simdjson::SUCCESS && n > 0 ? static_cast<uint64_t>(n) : 0;
}

double number_of(Lookup value) {
  double d = 0;
  return value.get(d) == simdjson::SUCCESS ? d : 0;
}

// Adds one (sub)profile's threads and samples; pids are collected because an exec'd process
// appears as two sub-profiles with one pid (docs/firefox-profiler-format.md, "Several processes"),
// and a processed profile lists every process's threads in one array.
void add_process(object profile, std::set<int64_t>& pids, ProfileSummary& summary) {
  array threads;
  if (profile["threads"].get(threads) != simdjson::SUCCESS) return;
  for (element thread : threads) {
    ++summary.threads;
    int64_t pid = 0;
    if (thread["pid"].get(pid) == simdjson::SUCCESS) pids.insert(pid);
    // Gecko tables hold rows under `data`; processed (self-contained) ones count them in `length`.
    array samples;
    if (thread["samples"]["data"].get(samples) == simdjson::SUCCESS) {
      summary.samples += samples.size();
    } else {
      summary.samples += count_of(thread["samples"]["length"]);
    }
  }
}

}  // namespace

ProfileSummary summarize_profile(std::string_view json) {
  ProfileSummary summary;
  simdjson::dom::parser parser;
  object top;
  if (parser.parse(json.data(), json.size()).get(top) != simdjson::SUCCESS) return summary;
  double version = 0;
  summary.is_gecko_profile = top["meta"]["version"].get(version) == simdjson::SUCCESS;
  std::string_view product;
  if (top["meta"]["product"].get(product) == simdjson::SUCCESS) summary.product = product;
  summary.duration_s = (number_of(top["meta"]["profilingEndTime"]) -
                        number_of(top["meta"]["profilingStartTime"])) / 1000.0;
  summary.lost = count_of(top["meta"]["sprof"]["lostRecords"]) +
                 count_of(top["meta"]["sprof"]["lostSamples"]);
  std::set<int64_t> pids;
  add_process(top, pids, summary);
  array processes;
  if (top["processes"].get(processes) == simdjson::SUCCESS) {
    for (element p : processes) {
      object sub;
      if (p.get(sub) == simdjson::SUCCESS) add_process(sub, pids, summary);
    }
  }
  summary.processes = pids.size();
  return summary;
}

}  // namespace sprof::api
