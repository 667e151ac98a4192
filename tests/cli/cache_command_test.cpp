// `sprof cache`: show and clear a symbol cache directory, and fill it with the modules a
// command hands on (`sprof cache fill NAME BREAKPAD-ID BINARY DEBUG-FILE ...`), as that command
// passes them: the kernel's module, "[kernel.kallsyms]", must reach it whole.
#include <doctest/doctest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "cli_test_support.hpp"
#include "sprof/elf/kernel_image.hpp"

namespace fs = std::filesystem;
using namespace sprof::test;

TEST_CASE("cache fill saves the running kernel's symbols under its build-id; show lists them") {
  const auto kernel_id = sprof::elf::read_kernel_build_id("/sys/kernel/notes");
  if (!kernel_id || ::access("/proc/kallsyms", R_OK) != 0) {
    MESSAGE("no kernel build-id or kallsyms here: skipped");
    return;
  }
  CliTempDir dir("sprof-cache-test-");
  const std::string cache = (dir.path / "cache").string();
  fs::create_directories(cache);  // made by the command that hands modules on
  const std::string breakpad = kernel_id->breakpad_id(true);
  const ProcessResult filled = run_sprof({"cache", "fill", "--symbol-cache", cache,
                                          "[kernel.kallsyms]", breakpad, "/proc/kallsyms", "-"});
  INFO(filled.out << filled.err);
  REQUIRE(filled.exit_code == 0);
  CHECK(filled.err.find("[kernel.kallsyms]: saved") != std::string::npos);

  const ProcessResult shown = run_sprof({"cache", "--symbol-cache", cache});
  INFO(shown.out << shown.err);
  CHECK(shown.out.starts_with("symbol cache " + cache + ": 1 module, "));
  CHECK(shown.out.find("kernel build-id " + kernel_id->code_id() + " core text from kallsyms") !=
        std::string::npos);

  const ProcessResult again = run_sprof({"cache", "fill", "--symbol-cache", cache,
                                         "[kernel.kallsyms]", breakpad, "/proc/kallsyms", "-"});
  CHECK(again.err.find("[kernel.kallsyms]: in the cache already") != std::string::npos);
}

TEST_CASE("cache show flags a file that is no index, and clear removes index files only") {
  CliTempDir dir("sprof-cache-test-");
  const std::string cache = (dir.path / "cache").string();
  fs::create_directories(cache);
  std::ofstream(cache + "/0123456789abcdef.idx") << "not an index";
  std::ofstream(cache + "/fill.lock") << "";
  const ProcessResult shown = run_sprof({"cache", "show", "--symbol-cache", cache});
  INFO(shown.out << shown.err);
  CHECK(shown.exit_code == 0);
  CHECK(shown.out.starts_with("symbol cache " + cache + ": 1 module, 12 B"));
  CHECK(shown.out.find("(not an index of this sprof version: replaced when used)") !=
        std::string::npos);

  const ProcessResult cleared = run_sprof({"cache", "clear", "--symbol-cache", cache});
  CHECK(cleared.out == "symbol cache " + cache + ": removed 1 module\n");
  CHECK_FALSE(fs::exists(cache + "/0123456789abcdef.idx"));
  CHECK(fs::exists(cache + "/fill.lock"));
}

TEST_CASE("cache refuses modules that are not groups of four, and arguments to show") {
  CliTempDir dir("sprof-cache-test-");
  const std::string cache = (dir.path / "cache").string();
  fs::create_directories(cache);
  const ProcessResult fill = run_sprof({"cache", "fill", "--symbol-cache", cache, "a", "b", "c"});
  CHECK(fill.exit_code == 1);
  CHECK(fill.err.find("NAME BREAKPAD-ID BINARY DEBUG-FILE per module") != std::string::npos);
  const ProcessResult show = run_sprof({"cache", "show", "--symbol-cache", cache, "x"});
  CHECK(show.exit_code == 1);
  CHECK(show.err.find("unexpected: x") != std::string::npos);
  // A directory that is gone is not made again by fill (a temporary cache removed meanwhile).
  const std::string gone = (dir.path / "gone").string();
  const ProcessResult late =
      run_sprof({"cache", "fill", "--symbol-cache", gone, "m.so", "AB", "/nonexistent", "-"});
  CHECK(late.exit_code == 3);
  CHECK_FALSE(fs::exists(gone));
}
