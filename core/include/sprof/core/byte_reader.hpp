// sprof/core/byte_reader.hpp
//
// Bounds-checked little-endian cursor over bytes from the kernel, files or the network. Every
// read reports failure instead of reading past the end; once a read fails the reader stays
// failed, so a parser can read a whole structure and check `ok()` once.
#pragma once

#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>
#include <type_traits>

namespace sprof {

class ByteReader {
 public:
  explicit ByteReader(std::span<const uint8_t> bytes) : bytes_(bytes) {}

  size_t position() const { return pos_; }
  size_t remaining() const { return ok_ ? bytes_.size() - pos_ : 0; }
  bool ok() const { return ok_; }

  // Reads a trivially copyable T in host byte order (perf records are host-endian).
  template <typename T>
  bool read(T& out) {
    static_assert(std::is_trivially_copyable_v<T>);
    if (!ok_ || bytes_.size() - pos_ < sizeof(T)) return fail();
    std::memcpy(&out, bytes_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return true;
  }

  uint64_t u64() {
    uint64_t v = 0;
    read(v);
    return v;
  }
  uint32_t u32() {
    uint32_t v = 0;
    read(v);
    return v;
  }
  uint16_t u16() {
    uint16_t v = 0;
    read(v);
    return v;
  }
  uint8_t u8() {
    uint8_t v = 0;
    read(v);
    return v;
  }

  // LEB128 (DWARF 5 section 7.6). A value that does not fit 64 bits fails the reader, so a run of
  // continuation bytes cannot make a parser loop or shift past the width.
  uint64_t uleb128() {
    uint64_t value = 0;
    for (unsigned shift = 0;; shift += 7) {
      const uint8_t byte = u8();
      if (!ok_) return 0;
      if (shift >= 64 || (shift == 63 && (byte & 0x7e) != 0)) {
        fail();
        return 0;
      }
      value |= uint64_t{byte & 0x7fu} << shift;
      if ((byte & 0x80) == 0) return value;
    }
  }
  int64_t sleb128() {
    uint64_t value = 0;
    for (unsigned shift = 0;; shift += 7) {
      const uint8_t byte = u8();
      if (!ok_) return 0;
      if (shift >= 64) {
        fail();
        return 0;
      }
      value |= uint64_t{byte & 0x7fu} << shift;
      if ((byte & 0x80) == 0) {
        if (shift + 7 < 64 && (byte & 0x40) != 0) value |= ~uint64_t{0} << (shift + 7);
        return static_cast<int64_t>(value);
      }
    }
  }

  bool skip(size_t n) {
    if (!ok_ || bytes_.size() - pos_ < n) return fail();
    pos_ += n;
    return true;
  }

  // Returns a view of the next `n` bytes and advances; an empty span and failure if short.
  std::span<const uint8_t> bytes(size_t n) {
    if (!ok_ || bytes_.size() - pos_ < n) {
      fail();
      return {};
    }
    auto s = bytes_.subspan(pos_, n);
    pos_ += n;
    return s;
  }

  // Reads a NUL-terminated string padded to `n` bytes in total (as in perf's COMM/MMAP records).
  std::string_view padded_string(size_t n) {
    auto s = bytes(n);
    if (s.empty()) return {};
    const auto* p = reinterpret_cast<const char*>(s.data());
    return std::string_view(p, strnlen(p, s.size()));
  }

  // Reads a NUL-terminated string that ends somewhere before `limit` bytes, then skips to the
  // next multiple of `align` relative to the start of the buffer.
  std::string_view c_string_aligned(size_t align) {
    if (!ok_) return {};
    const auto* p = reinterpret_cast<const char*>(bytes_.data() + pos_);
    const size_t len = strnlen(p, bytes_.size() - pos_);
    if (len == bytes_.size() - pos_) {
      fail();
      return {};
    }
    std::string_view s(p, len);
    size_t end = pos_ + len + 1;
    end = (end + align - 1) / align * align;
    if (end > bytes_.size()) end = bytes_.size();
    pos_ = end;
    return s;
  }

 private:
  bool fail() {
    ok_ = false;
    return false;
  }

  std::span<const uint8_t> bytes_;
  size_t pos_ = 0;
  bool ok_ = true;
};

}  // namespace sprof
