// The tracepoint id read from a private tracefs mount (recorder/src/perf/tracepoint_id.cpp): the
// kernel's id, and the machine's mount table the same before and after.
#include <doctest/doctest.h>
#include <sys/mount.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>

#include "perf/perf_event.hpp"

namespace {

std::string mount_table() {
  std::ifstream in("/proc/self/mountinfo");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

bool tracefs_mounted() { return mount_table().find(" - tracefs ") != std::string::npos; }

}  // namespace

TEST_CASE("a tracepoint id read from a private tracefs mount leaves the mount table unchanged") {
  using sprof::recorder::perf::tracepoint_id_from_private_tracefs;
  constexpr const char* kIdFile = "events/sched/sched_stat_runtime/id";
  if (::geteuid() != 0) {
    // Mounting needs root: without it the answer is "none", not an error.
    CHECK_FALSE(tracepoint_id_from_private_tracefs(kIdFile).has_value());
    return;
  }
  const std::string before = mount_table();
  const auto id = tracepoint_id_from_private_tracefs(kIdFile);
  CHECK(mount_table() == before);
  if (!id) {
    MESSAGE("this kernel or container does not let root mount tracefs; nothing to compare");
    return;
  }
  CHECK(*id > 0);
  CHECK_FALSE(tracepoint_id_from_private_tracefs("events/sched/no_such_tracepoint/id"));
  CHECK(mount_table() == before);

  // The same id as a real mount gives, where the test may make one (and undo it).
  if (!tracefs_mounted() && ::mount("nodev", "/sys/kernel/tracing", "tracefs", 0, nullptr) == 0) {
    const auto real = sprof::recorder::perf::read_kernel_number(
        "/sys/kernel/tracing/events/sched/sched_stat_runtime/id");
    ::umount2("/sys/kernel/tracing", MNT_DETACH);
    REQUIRE(real.has_value());
    CHECK(*real == *id);
  }
}
