// .eh_frame FDE ranges, checked against an independent reader (binutils readelf).
#include "sprof/elf/eh_frame_functions.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdio>
#include <set>
#include <sstream>
#include <utility>

#include "symbols_test_support.hpp"

namespace sprof::elf {
namespace {

using Ranges = std::set<std::pair<uint64_t, uint64_t>>;

// "... FDE cie=00000000 pc=0000000000001020..0000000000001060" lines of `readelf -wf`.
Ranges readelf_fdes(const std::string& path) {
  std::istringstream out(test::run_command("readelf -wf '" + path + "' 2>/dev/null"));
  Ranges ranges;
  std::string line;
  while (std::getline(out, line)) {
    const size_t pc = line.find(" FDE ");
    const size_t at = line.find("pc=");
    if (pc == std::string::npos || at == std::string::npos) continue;
    unsigned long long begin = 0;
    unsigned long long end = 0;
    if (std::sscanf(line.c_str() + at, "pc=%llx..%llx", &begin, &end) == 2 && end > begin) {
      ranges.emplace(begin, end);
    }
  }
  return ranges;
}

TEST_CASE("every FDE of .eh_frame is read with the range readelf reports") {
  for (const std::string& path : {test::target_path("symbols/stripped/sprof_symbols_target"),
                                  test::target_path("libsprof_symbols_shared.so"),
                                  std::string("/lib/x86_64-linux-gnu/libc.so.6")}) {
    CAPTURE(path);
    auto fdes = read_eh_frame_functions(path);
    REQUIRE(fdes.has_value());
    CHECK(fdes->skipped_fdes == 0);
    Ranges ours;
    for (const FunctionRange& f : fdes->functions) ours.emplace(f.begin, f.end);
    const Ranges expected = readelf_fdes(path);
    REQUIRE(expected.size() >= 3);
    CHECK(ours == expected);
    CHECK(std::is_sorted(
        fdes->functions.begin(), fdes->functions.end(),
        [](const FunctionRange& a, const FunctionRange& b) { return a.begin < b.begin; }));
  }
}

TEST_CASE("a separate debug file has no .eh_frame contents and yields no functions") {
  auto fdes = read_eh_frame_functions(test::target_path("symbols/sprof_symbols_target.debug"));
  REQUIRE(fdes.has_value());
  CHECK(fdes->functions.empty());
}

TEST_CASE("a missing file is not found") {
  auto fdes = read_eh_frame_functions("/nonexistent/sprof-no-such-file");
  REQUIRE_FALSE(fdes.has_value());
  CHECK(fdes.error().code == Errc::kNotFound);
}

}  // namespace
}  // namespace sprof::elf
