// Fuzz target: JIT perf maps, /tmp/perf-<pid>.map, written by the recorded program.
#include "sprof/core/jit_symbol_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)sprof::parse_jit_symbol_file(sprof::JitFileKind::kPerfMap, text);
  (void)sprof::jit_content_hash(text);
  return 0;
}
