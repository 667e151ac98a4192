// Fuzz target: C++ symbol names from ELF files and JIT maps, through sprof's demangling API
// (which hands "_Z" names to the C++ runtime's __cxa_demangle).
#include "sprof/symbolicator/demangle.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view name(reinterpret_cast<const char*>(data), size);
  (void)sprof::symbolicator::demangle_cxx(name);
  (void)sprof::symbolicator::demangle(name);
  return 0;
}
