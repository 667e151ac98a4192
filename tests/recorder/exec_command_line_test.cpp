// Exec markers carry the command line the recorder reads from /proc/PID/cmdline.
#include <doctest/doctest.h>
#include <unistd.h>

#include <string>

#include "process/proc_maps.hpp"

using namespace sprof::recorder;

TEST_CASE("the command line from /proc is split into its arguments") {
  using Argv = std::vector<std::string>;
  CHECK(argv_from_proc(std::string("ls\0-l\0/tmp dir\0", 15)) == Argv{"ls", "-l", "/tmp dir"});
  CHECK(argv_from_proc(std::string("x\0\0\0", 4)) == Argv{"x"});
  CHECK(argv_from_proc(std::string("x\0\0y\0", 5)) == Argv{"x", "", "y"});
  CHECK(argv_from_proc("").empty());
  // This process's own command line is readable.
  const auto own = read_proc_argv(static_cast<uint32_t>(getpid()), "/proc");
  REQUIRE(own.has_value());
  REQUIRE_FALSE(own->empty());
  CHECK(own->front().find("sprof_markers_jit_tests") != std::string::npos);
  CHECK_FALSE(read_proc_argv(0, "/proc").has_value());
}
