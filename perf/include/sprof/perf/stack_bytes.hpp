// sprof/perf/stack_bytes.hpp
//
// The user stack copy of a sample (PERF_SAMPLE_STACK_USER). Records outlive the ring-buffer bytes
// they were decoded from, so the parser normally copies the stack; a source whose bytes outlive
// every record (a perf.data file mapped for the whole conversion) lets it borrow them instead,
// which spares copying 8 KiB per sample when the unwinder reads a few hundred bytes of them.
// Reads like a byte vector either way; copies of a borrowing StackBytes borrow the same bytes.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <vector>

namespace sprof::perf {

class StackBytes {
 public:
  StackBytes() = default;
  StackBytes(std::vector<uint8_t> owned) : owned_(std::move(owned)) {}  // NOLINT(implicit)
  StackBytes(std::initializer_list<uint8_t> bytes) : owned_(bytes) {}
  StackBytes& operator=(std::vector<uint8_t> owned) {
    assign_owned(std::move(owned));
    return *this;
  }
  StackBytes& operator=(std::initializer_list<uint8_t> bytes) {
    assign_owned(std::vector<uint8_t>(bytes));
    return *this;
  }

  // Bytes that must outlive this object and every copy of it.
  static StackBytes borrow(std::span<const uint8_t> bytes) {
    StackBytes s;
    s.borrowed_ = bytes;
    s.is_borrowed_ = true;
    return s;
  }
  template <typename It>
  void assign(It first, It last) {
    assign_owned(std::vector<uint8_t>(first, last));
  }
  void assign(size_t n, uint8_t value) { assign_owned(std::vector<uint8_t>(n, value)); }
  void clear() { assign_owned({}); }

  std::span<const uint8_t> bytes() const {
    return is_borrowed_ ? borrowed_ : std::span<const uint8_t>(owned_);
  }
  operator std::span<const uint8_t>() const { return bytes(); }  // NOLINT(implicit)
  const uint8_t* data() const { return bytes().data(); }
  size_t size() const { return bytes().size(); }
  bool empty() const { return size() == 0; }
  auto begin() const { return bytes().begin(); }
  auto end() const { return bytes().end(); }
  bool borrowed() const { return is_borrowed_; }
  // Copies borrowed bytes into storage of its own, before what they borrow from is reused.
  void own() {
    if (is_borrowed_) assign_owned(std::vector<uint8_t>(borrowed_.begin(), borrowed_.end()));
  }

  friend bool operator==(const StackBytes& a, const StackBytes& b) {
    const auto x = a.bytes(), y = b.bytes();
    return x.size() == y.size() && std::equal(x.begin(), x.end(), y.begin());
  }

 private:
  void assign_owned(std::vector<uint8_t> v) {
    owned_ = std::move(v);
    borrowed_ = {};
    is_borrowed_ = false;
  }
  std::vector<uint8_t> owned_;
  std::span<const uint8_t> borrowed_;
  bool is_borrowed_ = false;
};

}  // namespace sprof::perf
