// Reading (and gunzipping) profile files for the validator and other tests.
#include <zlib.h>

#include <fstream>
#include <sstream>

#include "sprof_test/gecko_validator.hpp"

namespace sprof::test {

namespace {

Result<std::string> gunzip(std::string_view bytes, const std::string& path) {
  z_stream stream{};
  // 15 + 32: accept zlib or gzip headers, detected automatically.
  if (inflateInit2(&stream, 15 + 32) != Z_OK) return fail(Errc::kInternal, "inflateInit2");
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
  stream.avail_in = static_cast<uInt>(bytes.size());
  std::string out;
  char buf[1 << 16];
  int rc = Z_OK;
  while (rc != Z_STREAM_END) {
    stream.next_out = reinterpret_cast<Bytef*>(buf);
    stream.avail_out = sizeof buf;
    rc = inflate(&stream, Z_NO_FLUSH);
    if (rc != Z_OK && rc != Z_STREAM_END) {
      inflateEnd(&stream);
      return fail(Errc::kMalformed, path + ": gzip stream is corrupt or truncated");
    }
    out.append(buf, sizeof buf - stream.avail_out);
  }
  inflateEnd(&stream);
  return out;
}

}  // namespace

Result<std::string> read_profile_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return fail(Errc::kNotFound, "cannot open " + path);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  std::string data = std::move(bytes).str();
  if (data.size() >= 2 && static_cast<unsigned char>(data[0]) == 0x1f &&
      static_cast<unsigned char>(data[1]) == 0x8b) {
    return gunzip(data, path);
  }
  return data;
}

std::vector<std::string> check_gecko_profile_file(const std::string& path,
                                                  const GeckoCheckOptions& options) {
  auto text = read_profile_text(path);
  if (!text) return {text.error().message};
  return check_gecko_profile(*text, options);
}

std::string join_problems(const std::vector<std::string>& problems) {
  std::string out;
  for (const std::string& p : problems) out += p + "\n";
  return out;
}

}  // namespace sprof::test
