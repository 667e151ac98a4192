// Fuzz target: /source/v1 request bodies (a file and the module offset that must name it), as
// the symbol server receives them from any page that knows its token.
#include "api_fuzz_modules.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static sprof::fuzz::FuzzSymbolServer server;
  (void)server.handle("/source/v1", data, size);
  return 0;
}
