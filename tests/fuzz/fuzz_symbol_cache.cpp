// Fuzz target: symbol cache files (symbolicator/src/module_index_codec.hpp), which any process of
// the user, a full disk or a crash may have left in any state. The first byte picks what the
// input is: a whole file (header, checksums and all), or a prelude and units given a valid
// header, so that mutations reach the index's counts, indexes and sort orders past the
// checksums. A decoded map is then decoded whole (units are decoded lazily otherwise) and looked
// up across the addresses its payload is likely to name. The same bytes are also read as a
// kernel index. Seeds: a real index (seeds/write_seeds.cpp) in both forms.
#include <atomic>
#include <cstdlib>
#include <memory>
#include <string>

#include "memory_file.hpp"
#include "module_index_codec.hpp"
#include "sprof/core/untrusted_file.hpp"

namespace detail = sprof::symbolicator::detail;

namespace {

// The bytes as an index file: an index is read from a descriptor, a unit at a time.
detail::ModuleIndexFile index_file(const std::string& bytes, bool check_units) {
  const sprof::fuzz::MemoryFile memory(
      {reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()});
  auto file = sprof::open_untrusted_file(memory.path(), sprof::Symlinks::kFollow);
  if (!file) std::abort();  // the harness cannot work without it; not a finding in sprof
  return {std::move(*file), "", check_units};
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  const std::string fixed_key = "build-id 0123456789abcdef binary=1 dwarf=1 symtab=debug";
  // Odd first byte: the input is a whole file. Even: a prelude and units (split where the
  // second byte says) in a valid header, and units decoded unchecked, so that mutations reach
  // the counts, indexes and sort orders past both checksums.
  const bool whole = (data[0] & 1) != 0;
  const std::string_view rest(reinterpret_cast<const char*>(data + 2), size - 2);
  const size_t split = rest.size() * data[1] / 256;
  const std::string file =
      whole ? std::string(reinterpret_cast<const char*>(data), size)
            : detail::module_index_file(fixed_key, rest.substr(0, split), rest.substr(split));
  // A whole file is read under the key it names (a wrong key is refused before any parsing).
  const auto layout = whole ? detail::module_index_layout({data, size}) : std::nullopt;
  const std::string key = layout ? layout->key : fixed_key;
  const auto map = detail::decode_module_index(index_file(file, whole), key, {"module.so", "", ""});
  if (const auto kernel =
          detail::decode_kernel_index(index_file(file, whole), key, "/proc/kallsyms")) {
    for (uint64_t a = 0; a < 256; ++a) (void)(*kernel)->lookup(sprof::RelativeAddress{a});
  }
  if (!map) return 0;
  // Units are decoded when first needed: decode every one, as a lookup in each would.
  const std::atomic<bool> never{false};
  (void)(*map)->read_all(never);
  (void)(*map)->names_source_file("/fuzz/x.c");
  // Small addresses, and every 8-byte value of the input read as an address.
  for (uint64_t a = 0; a < 256; ++a) (void)(*map)->lookup(sprof::RelativeAddress{a});
  for (size_t i = 2; i + 8 <= size; i += 8) {
    uint64_t a = 0;
    for (size_t b = 0; b < 8; ++b) a |= uint64_t{data[i + b]} << (8 * b);
    (void)(*map)->lookup(sprof::RelativeAddress{a});
    (void)(*map)->lookup(sprof::RelativeAddress{a - 1});
  }
  return 0;
}
