// Source file names as DWARF means them: relative names joined with the compile directory.
#include <doctest/doctest.h>

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "sprof/elf/dwarf_data.hpp"
#include "sprof/symbolicator/symbolicator.hpp"
#include "symbols_test_support.hpp"

namespace sprof::symbolicator {
namespace {

TEST_CASE("a relative source name is joined with the compile directory and normalised") {
  CHECK(elf::join_source_path("/build/glibc/math", "../sysdeps/x86_64/fpu/fclrexcpt.c") ==
        "/build/glibc/sysdeps/x86_64/fpu/fclrexcpt.c");
  CHECK(elf::join_source_path("/b/obj", "./src/../include/f.h") == "/b/obj/include/f.h");
  // Debian's glibc maps its build root to ".": the joined name stays relative to that root.
  CHECK(elf::join_source_path("./math", "../sysdeps/x86_64/fpu/fclrexcpt.c") ==
        "sysdeps/x86_64/fpu/fclrexcpt.c");
}

// What join_source_path meant before it normalised strings itself: std::filesystem's rules.
std::string joined_by_filesystem(std::string_view comp_dir, std::string_view path) {
  std::filesystem::path joined(path);
  if (joined.is_relative() && !comp_dir.empty()) joined = std::filesystem::path(comp_dir) / joined;
  std::string normal = joined.lexically_normal().string();
  if (normal.size() > 1 && normal.back() == '/') normal.pop_back();
  return normal.empty() ? std::string(path) : normal;
}

TEST_CASE("joining normalises every path as std::filesystem's lexically_normal does") {
  // Every path of up to four names from this set, with and without a leading and a trailing
  // slash, against compile directories of the same kinds.
  const std::vector<std::string> names = {"a", "bc", ".", "..", "", "..."};
  std::vector<std::string> paths = {""};
  for (size_t length = 1; length <= 4; ++length) {
    std::vector<size_t> digit(length, 0);
    for (;;) {
      std::string path;
      for (size_t i = 0; i < length; ++i) path += (i ? "/" : "") + names[digit[i]];
      for (const char* prefix : {"", "/", "//"}) {
        for (const char* suffix : {"", "/"}) paths.push_back(prefix + path + suffix);
      }
      size_t i = 0;
      while (i < length && ++digit[i] == names.size()) digit[i++] = 0;
      if (i == length) break;
    }
  }
  const std::vector<std::string> comp_dirs = {"", "/b/obj", "./math", "/", "rel/dir/", "/a/../.."};
  size_t checked = 0;
  // A name of nothing but separators names no file; libstdc++ returns "//" and "///" as they
  // are (POSIX leaves a leading "//" implementation-defined), where sprof gives "/".
  const auto only_separators = [](const std::string& s) {
    return !s.empty() && s.find_first_not_of('/') == std::string::npos;
  };
  for (const std::string& comp_dir : comp_dirs) {
    for (const std::string& path : paths) {
      if (only_separators(path)) continue;
      CAPTURE(comp_dir);
      CAPTURE(path);
      REQUIRE(elf::join_source_path(comp_dir, path) == joined_by_filesystem(comp_dir, path));
      ++checked;
    }
  }
  CHECK(checked > 10000);
}

TEST_CASE("an absolute source name ignores the compile directory") {
  CHECK(elf::join_source_path("/b/obj", "/usr/include/c++/12/bits/stl_vector.h") ==
        "/usr/include/c++/12/bits/stl_vector.h");
  CHECK(elf::join_source_path("/b/obj", "/usr/include/../include/stdio.h") ==
        "/usr/include/stdio.h");
  CHECK(elf::join_source_path("", "src/f.c") == "src/f.c");
}

TEST_CASE("a program compiled from a relative path names its real source file") {
  const std::string path = test::target_path("symbols/sprof_symbols_relative");
  const auto identity = test::identity_of(path);
  Symbolicator symbolicator(SymbolicatorOptions{});
  symbolicator.add_hint(ModuleHint{"sprof_symbols_relative", identity.breakpad_id(), path});
  auto map = symbolicator.module("sprof_symbols_relative", identity.breakpad_id());
  REQUIRE(map.has_value());
  const elf::ElfSymbol symbol = test::symbol_in(path, "_Z17relative_functioni");
  auto info = (*map)->lookup(RelativeAddress{symbol.address - identity.base_vaddr});
  REQUIRE(info.has_value());
  const std::string source =
      std::filesystem::path(test::symbols_source("relative_paths.cpp")).lexically_normal().string();
  CHECK(info->file == source);
  CHECK(info->line == test::marker_line(source, "relative_body"));
  // /source/v1 serves a file only if the module's debug info names it: by the joined name.
  CHECK((*map)->names_source_file(source));
}

}  // namespace
}  // namespace sprof::symbolicator
