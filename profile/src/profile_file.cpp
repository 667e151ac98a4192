#include "sprof/profile/profile_file.hpp"

#include <unistd.h>
#include <zlib.h>

#include <array>
#include <cerrno>
#include <new>
#include <span>
#include <string_view>

#include "sprof/core/untrusted_file.hpp"

namespace sprof::profile {

namespace {

constexpr size_t kChunkBytes = size_t{1} << 16;
// RFC 1952 section 2.3.1: ID1 ID2.
constexpr unsigned char kGzipId1 = 0x1f;
constexpr unsigned char kGzipId2 = 0x8b;
// Leading whitespace a JSON text may have before its first value; more is not a profile.
constexpr size_t kMaxLeadingWhitespace = size_t{1} << 16;

bool is_json_whitespace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// Collects the JSON text: bounded, and refusing a text that does not start like a JSON object
// as soon as its first non-whitespace byte is known.
class JsonText {
 public:
  JsonText(const std::string& path, const ProfileJsonLimit& limit) : path_(path), limit_(limit) {}

  Result<void> append(std::string_view bytes) {
    if (bytes.size() > limit_.bytes - text_.size()) {
      // Said as soon as the text passes the limit: the rest is not inflated.
      return fail(Errc::kTooLarge, path_ + ": its JSON text is larger than " +
                                       std::to_string(limit_.bytes) + " bytes, " + limit_.why);
    }
    try {
      text_.append(bytes);
    } catch (const std::bad_alloc&) {  // the boundary where the input's size meets the heap
      return fail(Errc::kTooLarge, path_ + ": not enough memory for its JSON text (" +
                                       std::to_string(text_.size() + bytes.size()) + " bytes)");
    }
    return check_shape();
  }

  // The whole text, once the input ended.
  Result<std::string> finish() && {
    if (!shape_known_) return fail(Errc::kMalformed, path_ + ": empty, not a JSON profile");
    return std::move(text_);
  }

 private:
  Result<void> check_shape() {
    if (shape_known_) return ok();
    if (!bom_checked_) {
      // A UTF-8 byte order mark is dropped, as the profiler's TextDecoder drops it; JSON parsers
      // (simdjson) refuse it. A chunk may end inside it.
      constexpr std::string_view kBom = "\xEF\xBB\xBF";
      if (text_.size() < kBom.size() && kBom.starts_with(text_)) return ok();
      if (text_.starts_with(kBom)) text_.erase(0, kBom.size());
      bom_checked_ = true;
    }
    const std::string_view text = text_;
    size_t i = 0;
    while (i < text.size() && is_json_whitespace(text[i])) ++i;
    if (i == text.size()) {
      if (i <= kMaxLeadingWhitespace) return ok();
      return fail(Errc::kMalformed, path_ + ": starts with more than " +
                                        std::to_string(kMaxLeadingWhitespace) +
                                        " bytes of whitespace; not a JSON profile");
    }
    if (text[i] != '{') {
      return fail(Errc::kMalformed, path_ + ": does not start with a JSON object; not a profile");
    }
    shape_known_ = true;
    return ok();
  }

  const std::string& path_;
  const ProfileJsonLimit& limit_;
  std::string text_;
  bool bom_checked_ = false;
  bool shape_known_ = false;
};

// Reads up to `out.size()` bytes; 0 at the end of the file.
Result<size_t> read_some(int fd, std::span<unsigned char> out, const std::string& path) {
  for (;;) {
    const ssize_t n = ::read(fd, out.data(), out.size());
    if (n >= 0) return static_cast<size_t>(n);
    if (errno != EINTR) {
      Error e = Error::from_errno("read(" + path + ")");
      e.code = Errc::kIo;
      return e;
    }
  }
}

struct InflateStream {
  z_stream z{};
  bool initialized = false;
  ~InflateStream() {
    if (initialized) inflateEnd(&z);
  }
};

// Inflates gzip members (RFC 1952; several in a row, as `cat a.gz b.gz` makes) into `text`.
// `input` holds the bytes already read from `fd`. Bytes after the last member that do not start
// another one are ignored, as gzip(1) and zlib's gzread do.
Result<void> inflate_gzip(int fd, std::span<unsigned char> buffer, size_t buffered, JsonText& text,
                          const std::string& path) {
  InflateStream stream;
  // windowBits 15 + 16: a gzip wrapper is required.
  if (inflateInit2(&stream.z, 15 + 16) != Z_OK) {
    return fail(Errc::kTooLarge, path + ": inflateInit2 failed (out of memory)");
  }
  stream.initialized = true;
  z_stream& z = stream.z;
  z.next_in = buffer.data();
  z.avail_in = static_cast<uInt>(buffered);
  std::array<unsigned char, kChunkBytes> out{};
  bool at_eof = false;
  for (;;) {
    if (z.avail_in == 0 && !at_eof) {
      SPROF_TRY(const size_t n, read_some(fd, buffer, path));
      at_eof = n == 0;
      z.next_in = buffer.data();
      z.avail_in = static_cast<uInt>(n);
    }
    z.next_out = out.data();
    z.avail_out = static_cast<uInt>(out.size());
    const int rc = inflate(&z, Z_NO_FLUSH);
    SPROF_TRY_VOID(text.append(
        std::string_view(reinterpret_cast<const char*>(out.data()), out.size() - z.avail_out)));
    if (rc == Z_STREAM_END) {
      if (z.avail_in == 0 && !at_eof) {
        SPROF_TRY(const size_t n, read_some(fd, buffer, path));
        at_eof = n == 0;
        z.next_in = buffer.data();
        z.avail_in = static_cast<uInt>(n);
      }
      const bool another_member =
          z.avail_in >= 2 && z.next_in[0] == kGzipId1 && z.next_in[1] == kGzipId2;
      if (!another_member) return ok();
      inflateReset(&z);
      continue;
    }
    if (rc == Z_MEM_ERROR) return fail(Errc::kTooLarge, path + ": inflate: out of memory");
    if (rc == Z_DATA_ERROR || rc == Z_NEED_DICT || rc == Z_STREAM_ERROR) {
      return fail(Errc::kMalformed, path + ": corrupt gzip stream" +
                                        (z.msg != nullptr ? std::string(" (") + z.msg + ")" : ""));
    }
    // Z_BUF_ERROR: no progress was possible; with no input left that is a cut stream.
    if (at_eof && z.avail_in == 0 && (rc == Z_BUF_ERROR || z.avail_out != 0)) {
      return fail(Errc::kMalformed, path + ": gzip stream is truncated");
    }
  }
}

}  // namespace

Result<std::string> read_profile_json(const std::string& path, const ProfileJsonLimit& limit) {
  // The user names the file, so a symlink is followed; a FIFO or device still is not opened.
  SPROF_TRY(UntrustedFile file, open_untrusted_file(path, Symlinks::kFollow));
  JsonText text(path, limit);
  std::array<unsigned char, kChunkBytes> buffer{};
  SPROF_TRY(size_t n, read_some(file.fd.get(), buffer, path));
  if (n >= 2 && buffer[0] == kGzipId1 && buffer[1] == kGzipId2) {
    SPROF_TRY_VOID(inflate_gzip(file.fd.get(), buffer, n, text, path));
    return std::move(text).finish();
  }
  if (file.size_bytes > limit.bytes) {
    return fail(Errc::kTooLarge, path + ": " + std::to_string(file.size_bytes) +
                                     " bytes, larger than " + std::to_string(limit.bytes) +
                                     " bytes, " + limit.why);
  }
  while (n > 0) {
    SPROF_TRY_VOID(text.append(std::string_view(reinterpret_cast<const char*>(buffer.data()), n)));
    SPROF_TRY(n, read_some(file.fd.get(), buffer, path));
  }
  return std::move(text).finish();
}

}  // namespace sprof::profile
