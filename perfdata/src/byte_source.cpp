#include "sprof/perfdata/byte_source.hpp"

#include <cstring>

namespace sprof::perfdata {

namespace {

Unexpected past_end(uint64_t offset, size_t bytes, uint64_t size) {
  return fail(Errc::kMalformed, "bytes " + std::to_string(offset) + ".." +
                                    std::to_string(offset + bytes) + " are past the end (" +
                                    std::to_string(size) + " bytes)");
}

}  // namespace

Result<void> MemoryBytes::read(uint64_t offset, std::span<uint8_t> out) {
  if (!range_within(offset, out.size(), bytes_.size())) return past_end(offset, out.size(), size());
  if (!out.empty()) std::memcpy(out.data(), bytes_.data() + offset, out.size());
  return ok();
}

Result<FileBytes> FileBytes::open(const std::string& path) {
  SPROF_TRY(UntrustedFile file, open_untrusted_file(path, Symlinks::kFollow));
  return FileBytes(std::move(file), path);
}

Result<void> FileBytes::read(uint64_t offset, std::span<uint8_t> out) {
  if (!range_within(offset, out.size(), size())) return past_end(offset, out.size(), size());
  return read_untrusted_at(file_, offset, out);
}

Result<std::vector<uint8_t>> read_range(ByteSource& source, uint64_t offset, uint64_t size,
                                        uint64_t max_bytes, const std::string& what) {
  if (!range_within(offset, size, source.size())) {
    return fail(Errc::kMalformed, what + " (bytes " + std::to_string(offset) + "+" +
                                      std::to_string(size) + ") runs past the end of " +
                                      source.name() + " (" + std::to_string(source.size()) +
                                      " bytes)");
  }
  if (size > max_bytes) {
    return fail(Errc::kTooLarge, what + " is " + std::to_string(size) + " bytes, more than the " +
                                     std::to_string(max_bytes) + " sprof reads");
  }
  std::vector<uint8_t> bytes(static_cast<size_t>(size));
  SPROF_TRY_VOID(source.read(offset, bytes));
  return bytes;
}

}  // namespace sprof::perfdata
