// The protobuf wire format, as much as pprof's profile.proto needs: varint and length-delimited
// fields, packed repeated varints, nested messages (encoded into their own writer first, then
// appended with their length). Field numbers come from the caller; nothing is reflected.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace sprof::report::detail {

class ProtobufWriter {
 public:
  // A varint field; zero is written too (proto3 readers treat a missing field as zero alike).
  void varint_field(uint32_t field, uint64_t value) {
    key(field, kVarint);
    varint(value);
  }
  void int64_field(uint32_t field, int64_t value) {
    varint_field(field, static_cast<uint64_t>(value));  // two's complement, as int64 encodes
  }
  void bytes_field(uint32_t field, std::string_view bytes) {
    key(field, kLengthDelimited);
    varint(bytes.size());
    out_.append(bytes);
  }
  void message_field(uint32_t field, const ProtobufWriter& message) {
    bytes_field(field, message.bytes());
  }
  // A packed repeated varint field (what proto3 writes for `repeated uint64/int64`).
  template <typename Int>
  void packed_field(uint32_t field, const std::vector<Int>& values) {
    ProtobufWriter packed;
    for (Int v : values) packed.varint(static_cast<uint64_t>(v));
    bytes_field(field, packed.bytes());
  }

  const std::string& bytes() const { return out_; }
  std::string take() { return std::move(out_); }
  void clear() { out_.clear(); }

 private:
  static constexpr uint32_t kVarint = 0;
  static constexpr uint32_t kLengthDelimited = 2;

  void key(uint32_t field, uint32_t wire_type) { varint((uint64_t{field} << 3) | wire_type); }
  void varint(uint64_t v) {
    while (v >= 0x80) {
      out_.push_back(static_cast<char>((v & 0x7f) | 0x80));
      v >>= 7;
    }
    out_.push_back(static_cast<char>(v));
  }

  std::string out_;
};

}  // namespace sprof::report::detail
