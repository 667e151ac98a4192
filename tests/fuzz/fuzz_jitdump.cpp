// Fuzz target: jitdump files, jit-<pid>.dump, written by the recorded program.
#include "sprof/core/jit_symbol_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  (void)sprof::parse_jit_symbol_file(sprof::JitFileKind::kJitDump,
                                     std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
