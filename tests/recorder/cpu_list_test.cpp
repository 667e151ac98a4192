#include "perf/cpu_list.hpp"

#include <doctest/doctest.h>

using sprof::recorder::perf::parse_cpu_list;

TEST_CASE("cpu lists expand ranges and single CPUs in ascending order") {
  auto cpus = parse_cpu_list("0-1\n");
  REQUIRE(cpus.has_value());
  CHECK(*cpus == std::vector<uint32_t>{0, 1});
  cpus = parse_cpu_list("8-9,0,3-5");
  REQUIRE(cpus.has_value());
  CHECK(*cpus == std::vector<uint32_t>{0, 3, 4, 5, 8, 9});
  cpus = parse_cpu_list("2");
  REQUIRE(cpus.has_value());
  CHECK(*cpus == std::vector<uint32_t>{2});
}

TEST_CASE("cpu lists that do not parse are malformed") {
  for (const char* bad : {"", "\n", "1-", "-1", "3-1", "a", "0,,1", "0-99999999"}) {
    CAPTURE(bad);
    auto cpus = parse_cpu_list(bad);
    REQUIRE_FALSE(cpus.has_value());
    CHECK(cpus.error().code == sprof::Errc::kMalformed);
  }
}

TEST_CASE("this machine has at least one online CPU") {
  auto cpus = sprof::recorder::perf::online_cpus();
  REQUIRE(cpus.has_value());
  CHECK_FALSE(cpus->empty());
}
