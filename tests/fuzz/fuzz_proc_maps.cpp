// Fuzz target: /proc/PID/maps text (parse_maps), read for processes sprof attaches to.
#include "process/proc_maps.hpp"

namespace proc = sprof::recorder;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  size_t malformed = 0;
  const auto entries =
      proc::parse_maps(std::string_view(reinterpret_cast<const char*>(data), size), &malformed);
  for (const auto& entry : entries) (void)entry.is_pseudo();
  return 0;
}
