// Source file names as DWARF means them: relative names joined with the compile directory.
#include <doctest/doctest.h>

#include <filesystem>

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
