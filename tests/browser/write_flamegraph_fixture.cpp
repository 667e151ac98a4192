// Writes the browser test's profile: the report tests' hand-made profile
// (tests/report/report_profile_builder.hpp), self-contained, with `leaf` renamed to a C++ template
// name so the browser shows that the SVG's escaping round-trips.
//
// Usage: sprof_flamegraph_fixture OUT.json
#include <cstdio>
#include <fstream>
#include <string>

#include "report_profile_builder.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s OUT.json\n", argv[0]);
    return 2;
  }
  std::string json = sprof::test::report_profile_json();
  // Function names are strings of the threads' string tables, where "leaf" is a whole entry.
  const std::string from = "\"leaf\"";
  const std::string to = R"("Vec<int, A&>::leaf")";
  size_t renamed = 0;
  for (size_t at = json.find(from); at != std::string::npos; at = json.find(from, at + to.size())) {
    json.replace(at, from.size(), to);
    ++renamed;
  }
  if (renamed == 0) {
    std::fprintf(stderr, "the test profile no longer names a function `leaf`\n");
    return 1;
  }
  std::ofstream out(argv[1], std::ios::binary);
  out << json;
  return out.good() ? 0 : 1;
}
