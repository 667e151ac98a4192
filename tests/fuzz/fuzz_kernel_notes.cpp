// Fuzz target: /sys/kernel/notes, a sequence of ELF notes (parse_kernel_build_id).
#include "sprof/elf/kernel_image.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (const auto id = sprof::elf::parse_kernel_build_id({data, size})) {
    (void)id->breakpad_id(true);
  }
  return 0;
}
