#include "sprof/core/json_writer.hpp"

#include <charconv>
#include <cmath>

#include "sprof/core/hex.hpp"

namespace sprof {

namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

// Length of the valid UTF-8 sequence starting at s[i], or 0 if the bytes there are invalid
// (overlong forms, surrogates and code points above U+10FFFF are invalid, as for a fatal
// TextDecoder).
size_t valid_utf8_length(std::string_view s, size_t i) {
  const auto b0 = static_cast<unsigned char>(s[i]);
  if (b0 < 0x80) return 1;
  size_t len = 0;
  uint32_t min = 0;
  uint32_t cp = 0;
  if ((b0 & 0xE0) == 0xC0) {
    len = 2, min = 0x80, cp = b0 & 0x1F;
  } else if ((b0 & 0xF0) == 0xE0) {
    len = 3, min = 0x800, cp = b0 & 0x0F;
  } else if ((b0 & 0xF8) == 0xF0) {
    len = 4, min = 0x10000, cp = b0 & 0x07;
  } else {
    return 0;
  }
  if (i + len > s.size()) return 0;
  for (size_t k = 1; k < len; ++k) {
    const auto b = static_cast<unsigned char>(s[i + k]);
    if ((b & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (b & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return len;
}

}  // namespace

void append_json_string(std::string& out, std::string_view s) {
  out.push_back('"');
  size_t i = 0;
  while (i < s.size()) {
    // Runs of printable ASCII need no escaping; append them at once (names and paths are
    // almost entirely such runs, and symbolication replies are mostly strings).
    size_t run = i;
    while (run < s.size() && s[run] >= 0x20 && s[run] < 0x7F && s[run] != '"' && s[run] != '\\') {
      ++run;
    }
    if (run > i) {
      out.append(s.data() + i, run - i);
      i = run;
      continue;
    }
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x80) {
      const size_t len = valid_utf8_length(s, i);
      if (len == 0) {
        out.append(kReplacement);
        ++i;
      } else {
        out.append(s.substr(i, len));
        i += len;
      }
      continue;
    }
    switch (c) {
      case '"': out.append("\\\""); break;
      case '\\': out.append("\\\\"); break;
      case '\n': out.append("\\n"); break;
      case '\r': out.append("\\r"); break;
      case '\t': out.append("\\t"); break;
      case '\b': out.append("\\b"); break;
      case '\f': out.append("\\f"); break;
      default:
        if (c < 0x20 || c == 0x7F) {
          out.append("\\u00");
          append_hex_byte(out, c);
        } else {
          out.push_back(static_cast<char>(c));
        }
    }
    ++i;
  }
  out.push_back('"');
}

std::string sanitize_utf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  size_t i = 0;
  while (i < s.size()) {
    const size_t len = valid_utf8_length(s, i);
    if (len == 0) {
      out.append(kReplacement);
      ++i;
    } else {
      out.append(s.substr(i, len));
      i += len;
    }
  }
  return out;
}

void JsonWriter::before_value() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (!needs_comma_.empty()) {
    if (needs_comma_.back()) buf_.push_back(',');
    needs_comma_.back() = true;
  }
}

void JsonWriter::maybe_flush() {
  if (flush_ && buf_.size() >= flush_threshold_) flush();
}

void JsonWriter::flush() {
  if (flush_ && !buf_.empty()) {
    flush_(buf_);
    buf_.clear();
  }
}

JsonWriter& JsonWriter::open_container(char bracket) {
  before_value();
  buf_.push_back(bracket);
  needs_comma_.push_back(false);
  return *this;
}

JsonWriter& JsonWriter::close_container(char bracket) {
  buf_.push_back(bracket);
  needs_comma_.pop_back();
  maybe_flush();
  return *this;
}

JsonWriter& JsonWriter::begin_object() { return open_container('{'); }
JsonWriter& JsonWriter::end_object() { return close_container('}'); }
JsonWriter& JsonWriter::begin_array() { return open_container('['); }
JsonWriter& JsonWriter::end_array() { return close_container(']'); }

JsonWriter& JsonWriter::key(std::string_view k) {
  before_value();
  append_json_string(buf_, k);
  buf_.push_back(':');
  after_key_ = true;
  return *this;
}

JsonWriter& JsonWriter::value(std::string_view s) {
  before_value();
  append_json_string(buf_, s);
  maybe_flush();
  return *this;
}

JsonWriter& JsonWriter::value(bool b) {
  before_value();
  buf_.append(b ? "true" : "false");
  return *this;
}

namespace {

template <typename Integer>
void append_integer(std::string& out, Integer v) {
  char tmp[24];  // enough for any 64-bit integer with its sign
  auto [end, ec] = std::to_chars(tmp, tmp + sizeof tmp, v);
  out.append(tmp, end);
}

}  // namespace

void append_json_integer(std::string& out, int64_t v) { append_integer(out, v); }
void append_json_integer(std::string& out, uint64_t v) { append_integer(out, v); }

void append_json_number(std::string& out, double d, int max_decimals) {
  if (!std::isfinite(d)) {
    out.append("null");
    return;
  }
  char tmp[64];
  auto [end, ec] = std::to_chars(tmp, tmp + sizeof tmp, d, std::chars_format::fixed, max_decimals);
  if (ec != std::errc()) {
    // Only absurdly large values fail to fit; fall back to the shortest general form.
    auto r = std::to_chars(tmp, tmp + sizeof tmp, d);
    end = r.ptr;
  } else if (max_decimals > 0) {
    while (end > tmp && end[-1] == '0') --end;
    if (end > tmp && end[-1] == '.') --end;
  }
  std::string_view text(tmp, static_cast<size_t>(end - tmp));
  if (text == "-0") text = "0";
  out.append(text);
}

template <typename Integer>
JsonWriter& JsonWriter::integer(Integer v) {
  before_value();
  append_integer(buf_, v);
  return *this;
}

JsonWriter& JsonWriter::value(int64_t v) { return integer(v); }
JsonWriter& JsonWriter::value(uint64_t v) { return integer(v); }

JsonWriter& JsonWriter::value(double d, int max_decimals) {
  before_value();
  append_json_number(buf_, d, max_decimals);
  return *this;
}

JsonWriter& JsonWriter::null() {
  before_value();
  buf_.append("null");
  return *this;
}

JsonWriter& JsonWriter::raw_value(std::string_view json) {
  before_value();
  buf_.append(json);
  maybe_flush();
  return *this;
}

}  // namespace sprof
