// sprof/elf/elf_symbols.hpp
//
// Function symbols from an ELF file's .symtab and .dynsym, as stated in the file (SVMAs, mangled
// names). Tests use this to find a target program's functions by name; the symbolicator builds its
// sorted symbol index from it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sprof/core/result.hpp"
#include "sprof/elf/elf_file_handle.hpp"

namespace sprof::elf {

struct ElfSymbol {
  enum class Binding : uint8_t { kLocal = 0, kWeak = 1, kGlobal = 2 };  // ordered by preference

  uint64_t address = 0;  // st_value (SVMA)
  uint64_t size = 0;     // st_size, 0 if unknown
  std::string name;      // as stored (mangled)
  Binding binding = Binding::kLocal;
  bool from_dynsym = false;
  // STT_GNU_IFUNC: the address is the resolver's, which picks the implementation at load time.
  bool ifunc = false;
};

// Defined code symbols (STT_FUNC, STT_GNU_IFUNC, and STT_NOTYPE in executable sections) from
// .symtab and .dynsym; both tables are read, so a symbol may appear twice. kNotFound if the file
// doesn't exist; an ELF file without symbol tables yields an empty vector.
Result<std::vector<ElfSymbol>> read_symbols(const std::string& path);
// Same, from a file already opened.
std::vector<ElfSymbol> read_symbols(const ElfFile& file);

// The first symbol named exactly `name`, for tests and tools.
std::optional<ElfSymbol> find_symbol(const std::vector<ElfSymbol>& symbols, std::string_view name);

}  // namespace sprof::elf
