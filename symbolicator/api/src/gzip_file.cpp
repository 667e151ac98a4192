#include <zlib.h>

#include <cstring>
#include <memory>

#include "sprof/api/profile_libraries.hpp"

namespace sprof::api {

namespace {

struct GzCloser {
  void operator()(gzFile_s* file) const { gzclose(file); }
};

}  // namespace

Result<std::string> read_maybe_gzip_file(const std::string& path) {
  // zlib's gz* functions read files without a gzip header transparently, as plain bytes.
  std::unique_ptr<gzFile_s, GzCloser> file(gzopen(path.c_str(), "rb"));
  if (!file) return Error::from_errno("open " + path);
  gzbuffer(file.get(), 1 << 17);
  std::string out;
  constexpr unsigned kChunk = 1 << 20;
  for (;;) {
    const size_t old_size = out.size();
    out.resize(old_size + kChunk);
    const int n = gzread(file.get(), out.data() + old_size, kChunk);
    if (n < 0) {
      int zerr = Z_OK;
      const char* message = gzerror(file.get(), &zerr);
      return fail(zerr == Z_ERRNO ? Errc::kIo : Errc::kMalformed,
                  "read " + path + ": " + (message != nullptr ? message : "zlib error"));
    }
    out.resize(old_size + static_cast<size_t>(n));
    if (n == 0) break;
  }
  // A truncated gzip stream ends like a file does; zlib reports it only through gzerror.
  int zerr = Z_OK;
  const char* message = gzerror(file.get(), &zerr);
  if (zerr != Z_OK) {
    return fail(Errc::kMalformed,
                "read " + path + ": " + (message != nullptr ? message : "zlib error"));
  }
  return out;
}

}  // namespace sprof::api
