// Helpers shared by the elf and symbolicator tests: paths of the programs from
// tests/targets/symbols.cmake, symbol lookup by name, temporary directories, source markers and
// running eu-addr2line.
#pragma once

#include <doctest/doctest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "sprof/elf/elf_symbols.hpp"
#include "sprof/elf/module_identity.hpp"
#include "sprof_test/paths.hpp"

namespace sprof::test {

inline std::string target_path(const std::string& relative) {
  return std::string(kTargetsDir) + "/" + relative;
}
inline std::string symbols_source(const std::string& file) {
  return std::string(kSourceDir) + "/tests/targets/symbols/" + file;
}

inline std::string basename_of(const std::string& path) {
  return std::filesystem::path(path).filename().string();
}

inline elf::ModuleIdentity identity_of(const std::string& path) {
  auto id = elf::read_module_identity(path);
  REQUIRE_MESSAGE(id.has_value(), path);
  return *id;
}

// The symbol named `name` in `path`'s symbol tables; fails the test if absent.
inline elf::ElfSymbol symbol_in(const std::string& path, const std::string& name) {
  auto symbols = elf::read_symbols(path);
  REQUIRE_MESSAGE(symbols.has_value(), path);
  auto symbol = elf::find_symbol(*symbols, name);
  REQUIRE_MESSAGE(symbol.has_value(), name << " in " << path);
  return *symbol;
}

// The 1-based line of the first source line containing "MARKER:<marker>".
inline uint32_t marker_line(const std::string& source, const std::string& marker) {
  std::ifstream in(source);
  std::string line;
  for (uint32_t n = 1; std::getline(in, line); ++n) {
    if (line.find("MARKER:" + marker) != std::string::npos) return n;
  }
  FAIL("marker " << marker << " not found in " << source);
  return 0;
}

class TempDir {
 public:
  TempDir() {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "sprof-symbols-XXXXXX").string();
    REQUIRE(mkdtemp(pattern.data()) != nullptr);
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }
  // Copies `from` to `<dir>/<relative>`, creating directories.
  std::string copy_in(const std::string& from, const std::string& relative) const {
    const std::filesystem::path to = std::filesystem::path(path_) / relative;
    std::filesystem::create_directories(to.parent_path());
    std::filesystem::copy_file(from, to, std::filesystem::copy_options::overwrite_existing);
    return to.string();
  }
  std::string write(const std::string& relative, const std::string& contents) const {
    const std::filesystem::path to = std::filesystem::path(path_) / relative;
    std::filesystem::create_directories(to.parent_path());
    std::ofstream(to, std::ios::binary) << contents;
    return to.string();
  }

 private:
  std::string path_;
};

// "<root>/.build-id/xx/rest.debug" for a build-id, relative to the root.
inline std::string build_id_tree_path(const elf::ModuleIdentity& id) {
  const std::string hex = id.build_id.code_id();
  return ".build-id/" + hex.substr(0, 2) + "/" + hex.substr(2) + ".debug";
}

inline std::string run_command(const std::string& command) {
  std::string output;
  FILE* pipe = popen(command.c_str(), "r");
  REQUIRE_MESSAGE(pipe != nullptr, command);
  char buffer[4096];
  size_t n = 0;
  while ((n = fread(buffer, 1, sizeof(buffer), pipe)) > 0) output.append(buffer, n);
  pclose(pipe);
  return output;
}

}  // namespace sprof::test
