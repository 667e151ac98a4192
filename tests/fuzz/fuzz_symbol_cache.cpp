// Fuzz target: symbol cache files (symbolicator/src/module_index_codec.hpp), which any process of
// the user, a full disk or a crash may have left in any state. The first byte picks what the
// rest is: a whole file (header, checksum and all), or a payload given a valid header, so that
// mutations reach the index's counts, indexes and sort orders past the checksum. A decoded map
// is then decoded whole (units are decoded lazily otherwise) and looked up across the addresses
// its payload is likely to name. The same bytes are also read as a kernel index.
#include <atomic>
#include <memory>
#include <string>

#include "module_index_codec.hpp"

namespace detail = sprof::symbolicator::detail;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string key = "build-id 0123456789abcdef binary=1 dwarf=1 symtab=debug";
  const std::string_view rest(reinterpret_cast<const char*>(data + 1), size - 1);
  auto file = std::make_shared<const std::string>(
      (data[0] & 1) ? std::string(rest) : detail::module_index_file(key, rest));
  const auto map = detail::decode_module_index(file, key, {"module.so", "", ""});
  if (!map) return 0;
  // Units are decoded when first needed: decode every one, as a lookup in each would.
  const std::atomic<bool> never{false};
  (void)(*map)->read_all(never);
  (void)(*map)->names_source_file("/fuzz/x.c");
  // Small addresses, and every 8-byte value of the input read as an address.
  for (uint64_t a = 0; a < 256; ++a) (void)(*map)->lookup(sprof::RelativeAddress{a});
  if (const auto kernel = detail::decode_kernel_index(file, key, "/proc/kallsyms")) {
    for (uint64_t a = 0; a < 256; ++a) (void)(*kernel)->lookup(sprof::RelativeAddress{a});
  }
  for (size_t i = 1; i + 8 <= size; i += 8) {
    uint64_t a = 0;
    for (size_t b = 0; b < 8; ++b) a |= uint64_t{data[i + b]} << (8 * b);
    (void)(*map)->lookup(sprof::RelativeAddress{a});
    (void)(*map)->lookup(sprof::RelativeAddress{a - 1});
  }
  return 0;
}
