// Fuzz target: /symbolicate/v5 request bodies (module lists and stacks of offsets), as the
// symbol server receives them from any page that knows its token.
#include "api_fuzz_modules.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static sprof::fuzz::FuzzSymbolServer server;
  (void)server.handle("/symbolicate/v5", data, size);
  return 0;
}
