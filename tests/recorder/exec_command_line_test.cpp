// Exec markers carry the command line the recorder reads from /proc/PID/cmdline.
#include <doctest/doctest.h>
#include <unistd.h>

#include <string>

#include "process/proc_maps.hpp"

using namespace sprof::recorder;

TEST_CASE("the command line from /proc joins the arguments with spaces") {
  CHECK(command_line_from_proc(std::string("ls\0-l\0/tmp\0", 11)) == "ls -l /tmp");
  CHECK(command_line_from_proc(std::string("x\0\0\0", 4)) == "x");
  // This process's own command line is readable.
  const auto own = read_proc_command_line(static_cast<uint32_t>(getpid()), "/proc");
  REQUIRE(own.has_value());
  CHECK(own->find("sprof_markers_jit_tests") != std::string::npos);
  CHECK_FALSE(read_proc_command_line(0, "/proc").has_value());
}
