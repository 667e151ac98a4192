// elf/src/dwarf_cursor.hpp (private to sprof::elf)
//
// Reads DWARF's encodings (little-endian fixed sizes, LEB128, NUL-terminated strings) out of a
// section's bytes, which are untrusted: a read past the end yields 0 and marks the cursor
// failed, so a parser checks once, after a group of reads, instead of before each one.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>

namespace sprof::elf::detail {

class DwarfCursor {
 public:
  DwarfCursor() = default;
  DwarfCursor(std::span<const uint8_t> bytes, uint64_t offset) : bytes_(bytes), offset_(offset) {
    if (offset > bytes.size()) failed_ = true;
  }

  bool failed() const { return failed_; }
  uint64_t offset() const { return offset_; }
  size_t left() const { return offset_ < bytes_.size() ? bytes_.size() - offset_ : 0; }

  // `size` bytes (1..8), little-endian.
  uint64_t fixed(size_t size) {
    if (size > 8 || left() < size) return fail_with(0);
    uint64_t value = 0;
    if constexpr (std::endian::native == std::endian::little) {
      std::memcpy(&value, bytes_.data() + offset_, size);  // one load for the usual sizes
    } else {
      for (size_t i = 0; i < size; ++i) value |= uint64_t{bytes_[offset_ + i]} << (8 * i);
    }
    offset_ += size;
    return value;
  }
  uint8_t u8() { return static_cast<uint8_t>(fixed(1)); }
  uint16_t u16() { return static_cast<uint16_t>(fixed(2)); }
  uint32_t u32() { return static_cast<uint32_t>(fixed(4)); }
  uint64_t u64() { return fixed(8); }

  // A unit's initial length (DWARF 5 section 7.4): 4 bytes, or 0xffffffff and 8 more for 64-bit
  // DWARF, whose offsets are then 8 bytes wide (`offset_size`, 4 or 8). A reserved value
  // (0xfffffff0-0xfffffffe) fails the cursor.
  uint64_t initial_length(uint8_t& offset_size) {
    const uint64_t length = u32();
    offset_size = 4;
    if (length == 0xffffffff) {
      offset_size = 8;
      return u64();
    }
    return length >= 0xfffffff0 ? fail_with(0) : length;
  }

  // Bits beyond 64 are dropped (as libdw does); an encoding that does not end fails.
  uint64_t uleb() {
    uint64_t value = 0;
    for (unsigned shift = 0;; shift += 7) {
      if (offset_ >= bytes_.size()) return fail_with(0);
      const uint8_t byte = bytes_[offset_++];
      if (shift < 64) value |= uint64_t{byte & 0x7fu} << shift;
      if ((byte & 0x80u) == 0) return value;
    }
  }
  int64_t sleb() {
    uint64_t value = 0;
    unsigned shift = 0;
    uint8_t byte = 0;
    do {
      if (offset_ >= bytes_.size()) return static_cast<int64_t>(fail_with(0));
      byte = bytes_[offset_++];
      if (shift < 64) value |= uint64_t{byte & 0x7fu} << shift;
      shift += 7;
    } while ((byte & 0x80u) != 0);
    if (shift < 64 && (byte & 0x40u) != 0) value |= ~uint64_t{0} << shift;
    return static_cast<int64_t>(value);
  }

  // A NUL-terminated string in place; fails (and returns "") if no NUL ends it.
  std::string_view cstring() {
    if (offset_ >= bytes_.size()) return fail_with_text();
    const auto* start = reinterpret_cast<const char*>(bytes_.data() + offset_);
    const void* nul = std::memchr(start, 0, bytes_.size() - offset_);
    if (nul == nullptr) return fail_with_text();
    const auto length = static_cast<size_t>(static_cast<const char*>(nul) - start);
    offset_ += length + 1;
    return {start, length};
  }

  void skip(uint64_t count) {
    if (count > left()) {
      failed_ = true;
      offset_ = bytes_.size();
      return;
    }
    offset_ += count;
  }

 private:
  uint64_t fail_with(uint64_t value) {
    failed_ = true;
    offset_ = bytes_.size();
    return value;
  }
  std::string_view fail_with_text() {
    fail_with(0);
    return {};
  }

  std::span<const uint8_t> bytes_;
  uint64_t offset_ = 0;
  bool failed_ = false;
};

// The NUL-terminated string at `offset` of a string section; false (and `out` empty) if there is
// none there.
inline bool string_at(std::span<const uint8_t> section, uint64_t offset, std::string_view& out) {
  DwarfCursor cursor(section, offset);
  out = cursor.cstring();
  return !cursor.failed();
}

}  // namespace sprof::elf::detail
