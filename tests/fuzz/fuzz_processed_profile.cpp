// Fuzz target: the symbols a self-contained (processed) profile carries, which `sprof load`
// serves through /symbolicate/v5 when the binaries are gone (read_embedded_symbols).
#include "sprof/profile/profile_reader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto symbols = sprof::profile::read_embedded_symbols(
      std::string_view(reinterpret_cast<const char*>(data), size));
  if (!symbols) return 0;
  for (const auto& [key, module] : symbols->modules()) {
    for (const auto& [address, symbol] : module.entries()) {
      (void)module.lookup(address);
      (void)module.lookup(address + 1);
    }
  }
  return 0;
}
