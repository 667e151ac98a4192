// tests/support/pprof_raw.hpp (header-only)
//
// Reads what `go tool pprof -raw FILE` prints (Debian's golang-go), so tests check a pprof file
// sprof wrote through pprof's own decoder: the samples with their values and location ids, and
// each location's functions (innermost first, by their full name: pprof shows a shortened name
// and the full one in parentheses after it when they differ).
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "subprocess.hpp"

namespace sprof::test {

struct PprofRawSample {
  std::vector<int64_t> values;
  std::vector<uint64_t> locations;  // leaf first
};

struct PprofRaw {
  std::vector<std::string> sample_types;  // "samples/count", "cpu/nanoseconds"
  std::vector<PprofRawSample> samples;
  std::map<uint64_t, std::vector<std::string>> location_functions;  // innermost first
  std::vector<std::string> mappings;  // the lines of the Mappings section

  // Per function name: the weight (value `index`) of samples whose leaf is it, and of samples
  // with it anywhere (once per sample).
  std::map<std::string, std::pair<int64_t, int64_t>> self_and_total(size_t index) const {
    std::map<std::string, std::pair<int64_t, int64_t>> out;
    for (const PprofRawSample& s : samples) {
      std::set<std::string> seen;
      for (size_t i = 0; i < s.locations.size(); ++i) {
        const auto& functions = location_functions.at(s.locations[i]);
        for (size_t j = 0; j < functions.size(); ++j) {
          if (i == 0 && j == 0) out[functions[j]].first += s.values[index];
          if (seen.insert(functions[j]).second) out[functions[j]].second += s.values[index];
        }
      }
    }
    return out;
  }
};

// The full name in one line of a location: "name file:line s=N" or "... s=N(full name)".
inline std::string pprof_raw_function(const std::string& text) {
  const size_t s = text.rfind(" s=");
  if (s == std::string::npos) return text;
  const size_t paren = text.find('(', s);
  if (paren != std::string::npos && text.back() == ')') {
    return text.substr(paren + 1, text.size() - paren - 2);
  }
  const size_t file = text.rfind(' ', s - 1);
  return text.substr(0, file == std::string::npos ? s : file);
}

inline PprofRaw parse_pprof_raw(const std::string& raw) {
  PprofRaw out;
  std::istringstream in(raw);
  std::string section;
  uint64_t location = 0;
  for (std::string line; std::getline(in, line);) {
    if (line == "Samples:" || line == "Locations" || line == "Mappings") {
      section = line;
      continue;
    }
    if (section == "Samples:") {
      if (out.sample_types.empty()) {
        std::istringstream types(line);
        for (std::string t; types >> t;) out.sample_types.push_back(t.substr(0, t.find('[')));
        continue;
      }
      const size_t colon = line.find(':');
      if (colon == std::string::npos || line.find('[') != std::string::npos) continue;  // labels
      PprofRawSample sample;
      std::istringstream values(line.substr(0, colon)), ids(line.substr(colon + 1));
      for (int64_t v; values >> v;) sample.values.push_back(v);
      for (uint64_t id; ids >> id;) sample.locations.push_back(id);
      out.samples.push_back(std::move(sample));
    } else if (section == "Locations") {
      const size_t first = line.find_first_not_of(' ');
      if (first == std::string::npos) continue;
      const size_t colon = line.find(": 0x");
      if (colon != std::string::npos && line.find_first_not_of("0123456789", first) == colon) {
        location = std::stoull(line.substr(first, colon - first));
        // "N: 0xADDR M=K name ..." (M= only with a mapping)
        size_t name_at = line.find(' ', colon + 2) + 1;
        if (line.compare(name_at, 2, "M=") == 0) name_at = line.find(' ', name_at) + 1;
        out.location_functions[location].push_back(pprof_raw_function(line.substr(name_at)));
      } else {
        out.location_functions[location].push_back(pprof_raw_function(line.substr(first)));
      }
    } else if (section == "Mappings" && !line.empty()) {
      out.mappings.push_back(line);
    }
  }
  return out;
}

// `go tool pprof ARGS...`, or nullopt-like exit code 127 when go is not installed.
inline ProcessResult go_tool_pprof(std::vector<std::string> args) {
  args.insert(args.begin(), {"go", "tool", "pprof"});
  return run_process(args);
}

}  // namespace sprof::test
