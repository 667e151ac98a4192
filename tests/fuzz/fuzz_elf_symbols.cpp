// Fuzz target: ELF files as the symbolicator reads them to answer /symbolicate/v5: module
// identity (build-id notes, load segments), symbol tables, DWARF functions, inline scopes and
// line tables, then lookups across every loaded segment.
#include "memory_file.hpp"
#include "sprof/elf/module_identity.hpp"
#include "sprof/symbolicator/symbolicator.hpp"

namespace symbolicator = sprof::symbolicator;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const sprof::fuzz::ScratchDirFile file("module.so", {data, size});
  const auto identity = sprof::elf::read_module_identity(file.path());
  if (!identity) return 0;
  const std::string breakpad_id = identity->breakpad_id();
  symbolicator::SymbolicatorOptions options;
  options.debug_roots.clear();  // the machine's own debug files are not under test
  options.hints.push_back({"module.so", breakpad_id, file.path()});
  symbolicator::Symbolicator symbols(std::move(options));
  const auto map = symbols.module("module.so", breakpad_id);
  if (!map) return 0;
  (void)(*map)->names_source_file("/fuzz/x.c");
  // Relative addresses (SVMA - v0) across the first few segments: every 4th byte of their first
  // KiB and their last byte.
  size_t segments = 0;
  for (const auto& load : identity->loads) {
    if (++segments > 4) break;
    const uint64_t start = load.vaddr - identity->base_vaddr;
    for (uint64_t offset = 0; offset < 1024 && offset < load.memsz; offset += 4) {
      (void)(*map)->lookup(sprof::RelativeAddress{start + offset});
    }
    (void)(*map)->lookup(sprof::RelativeAddress{start + load.memsz - 1});
  }
  return 0;
}
