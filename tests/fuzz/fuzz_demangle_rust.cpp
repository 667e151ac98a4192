// Fuzz target: sprof's own Rust demanglers, legacy ("_ZN...17h<hash>E") and v0 ("_R...").
#include "sprof/symbolicator/demangle.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view name(reinterpret_cast<const char*>(data), size);
  (void)sprof::symbolicator::demangle_rust_legacy(name);
  (void)sprof::symbolicator::demangle_rust_v0(name);
  return 0;
}
