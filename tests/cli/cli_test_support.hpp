// tests/cli/cli_test_support.hpp: what the tests of the sprof executable share: a temporary
// directory per test process and running sprof with arguments.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "sprof_test/paths.hpp"
#include "subprocess.hpp"

namespace sprof::test {

struct CliTempDir {
  std::filesystem::path path;
  explicit CliTempDir(const std::string& prefix)
      : path(std::filesystem::temp_directory_path() / (prefix + std::to_string(::getpid()))) {
    std::filesystem::create_directories(path);
  }
  ~CliTempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  CliTempDir(const CliTempDir&) = delete;
  CliTempDir& operator=(const CliTempDir&) = delete;
};

inline ProcessResult run_sprof(const std::vector<std::string>& args) {
  std::vector<std::string> argv{kSprofExe};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_process(argv);
}

}  // namespace sprof::test
