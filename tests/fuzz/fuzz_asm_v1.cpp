// Fuzz target: /asm/v1 request bodies (an address range of a module's binary to disassemble),
// as the symbol server receives them from any page that knows its token.
#include "api_fuzz_modules.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static sprof::fuzz::FuzzSymbolServer server;
  (void)server.handle("/asm/v1", data, size);
  return 0;
}
