// sprof/core/json_writer.hpp
//
// A small streaming JSON writer: no DOM, commas and nesting tracked for the caller, strings
// escaped and made valid UTF-8 (each invalid byte becomes U+FFFD, because the Firefox Profiler
// decodes profiles with a fatal UTF-8 decoder). Non-finite doubles are written as `null`.
//
// Output accumulates in an internal buffer. With a flush callback the buffer is handed over
// whenever it grows past `flush_threshold`, so documents of any size stream in bounded memory;
// without one, `take()` returns the whole document.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sprof {

class JsonWriter {
 public:
  using FlushFn = std::function<void(std::string_view)>;

  JsonWriter() = default;
  explicit JsonWriter(FlushFn flush, size_t flush_threshold = 1 << 16)
      : flush_(std::move(flush)), flush_threshold_(flush_threshold) {}

  JsonWriter& begin_object();
  JsonWriter& end_object();
  JsonWriter& begin_array();
  JsonWriter& end_array();
  JsonWriter& key(std::string_view k);

  JsonWriter& value(std::string_view s);
  JsonWriter& value(const char* s) { return value(std::string_view(s)); }
  JsonWriter& value(const std::string& s) { return value(std::string_view(s)); }
  JsonWriter& value(bool b);
  JsonWriter& value(int v) { return value(static_cast<int64_t>(v)); }
  JsonWriter& value(unsigned v) { return value(static_cast<uint64_t>(v)); }
  JsonWriter& value(long long v) { return value(static_cast<int64_t>(v)); }
  JsonWriter& value(unsigned long long v) { return value(static_cast<uint64_t>(v)); }
  JsonWriter& value(int64_t v);   // `long` on LP64
  JsonWriter& value(uint64_t v);  // `unsigned long` (and size_t) on LP64
  // Doubles are written with at most `max_decimals` decimals, trailing zeros trimmed.
  JsonWriter& value(double d, int max_decimals = 6);
  JsonWriter& null();
  // A nullable value: JSON `null` when empty.
  template <typename T>
  JsonWriter& value(const std::optional<T>& v) {
    return v ? value(*v) : null();
  }
  // Appends an already-serialised JSON value verbatim.
  JsonWriter& raw_value(std::string_view json);

  // Convenience: key + value.
  template <typename T>
  JsonWriter& field(std::string_view k, T&& v) {
    key(k);
    return value(std::forward<T>(v));
  }

  // Hands any buffered output to the flush callback.
  void flush();
  // Returns the buffered document (everything, when no flush callback is set).
  std::string take() { return std::move(buf_); }
  const std::string& buffer() const { return buf_; }

 private:
  void before_value();
  void maybe_flush();
  JsonWriter& open_container(char bracket);
  template <typename Integer>
  JsonWriter& integer(Integer v);
  JsonWriter& close_container(char bracket);

  std::string buf_;
  std::vector<bool> needs_comma_;  // one per open container
  bool after_key_ = false;
  FlushFn flush_;
  size_t flush_threshold_ = 1 << 16;
};

// Appends `s` to `out` as a quoted JSON string, escaping control characters, quotes and
// backslashes and replacing each byte that is not part of valid UTF-8 with U+FFFD.
void append_json_string(std::string& out, std::string_view s);

// Appends `v` as JsonWriter::value writes it: an integer in decimal; a double in fixed notation
// with at most `max_decimals` decimals and no trailing zeros, `null` when not finite. For code
// that formats many rows of one shape at once (JsonWriter::raw_value).
void append_json_integer(std::string& out, int64_t v);
void append_json_integer(std::string& out, uint64_t v);
void append_json_number(std::string& out, double d, int max_decimals = 6);

// Returns `s` with invalid UTF-8 bytes replaced by U+FFFD (no quoting or escaping).
std::string sanitize_utf8(std::string_view s);

}  // namespace sprof
