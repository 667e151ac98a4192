// Fuzz target: /proc/kallsyms text, live or saved beside a recording (KernelSymbols::parse and
// the kernel image range derived from it).
#include "sprof/elf/kernel_image.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto symbols =
      sprof::elf::KernelSymbols::parse(std::string_view(reinterpret_cast<const char*>(data), size));
  (void)symbols.addresses_hidden();
  (void)symbols.address_of("_text");
  (void)sprof::elf::kernel_image_from(symbols, sprof::BuildId());
  return 0;
}
