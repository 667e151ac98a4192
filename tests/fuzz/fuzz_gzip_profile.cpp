// Fuzz target: the file `sprof load` opens, gzip-compressed or not, read with a bound on the
// inflated size (profile::read_profile_json).
#include "memory_file.hpp"
#include "sprof/profile/profile_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const sprof::fuzz::MemoryFile file({data, size});
  (void)sprof::profile::read_profile_json(file.path());
  return 0;
}
