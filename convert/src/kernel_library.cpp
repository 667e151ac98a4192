#include "sprof/convert/kernel_library.hpp"

#include <string>

namespace sprof::convert {

profile::Library kernel_library(const elf::KernelImage& image) {
  profile::Library lib;
  lib.start = image.text_start;
  lib.end = image.text_end;
  lib.offset = 0;
  lib.name = lib.debug_name = lib.path = lib.debug_path = std::string(elf::kKernelDebugName);
  lib.breakpad_id = image.build_id.empty() ? std::string(33, '0') : image.build_id.breakpad_id();
  lib.code_id = image.build_id.code_id();
  return lib;
}

}  // namespace sprof::convert
