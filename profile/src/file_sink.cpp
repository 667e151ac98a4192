#include "file_sink.hpp"

#include <fcntl.h>
#include <unistd.h>
#include <zlib.h>

#include <optional>

#include "sprof/core/unique_fd.hpp"

namespace sprof::profile::detail {

namespace {

// Writes everything or returns the errno-based error.
Result<void> write_all(int fd, std::string_view data, const std::string& path) {
  while (!data.empty()) {
    const ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return Error::from_errno("write " + path);
    }
    data.remove_prefix(static_cast<size_t>(n));
  }
  return ok();
}

class PlainFileSink : public FileSink {
 public:
  PlainFileSink(UniqueFd fd, std::string path) : fd_(std::move(fd)), path_(std::move(path)) {}

  void write(std::string_view chunk) override {
    if (error_) return;
    if (auto r = write_all(fd_.get(), chunk, path_); !r) {
      error_ = r.error();
      return;
    }
    bytes_ += chunk.size();
  }

  Result<uint64_t> finish() override {
    if (!error_ && ::close(fd_.release()) != 0) error_ = Error::from_errno("close " + path_);
    if (error_) return *error_;
    return bytes_;
  }

 protected:
  UniqueFd fd_;
  std::string path_;
  std::optional<Error> error_;
  uint64_t bytes_ = 0;
};

class GzipFileSink : public PlainFileSink {
 public:
  GzipFileSink(UniqueFd fd, std::string path) : PlainFileSink(std::move(fd), std::move(path)) {}
  ~GzipFileSink() override {
    if (initialized_) deflateEnd(&stream_);
  }

  Result<void> init() {
    // windowBits 15 + 16 selects the gzip wrapper. No header fields are set, so the mtime is 0
    // and the same JSON always gives the same bytes.
    if (deflateInit2(&stream_, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
                     Z_DEFAULT_STRATEGY) != Z_OK) {
      return fail(Errc::kInternal, "deflateInit2 failed for " + path_);
    }
    initialized_ = true;
    return ok();
  }

  void write(std::string_view chunk) override { deflate_chunk(chunk, Z_NO_FLUSH); }

  Result<uint64_t> finish() override {
    deflate_chunk({}, Z_FINISH);
    return PlainFileSink::finish();
  }

 private:
  void deflate_chunk(std::string_view chunk, int flush) {
    if (error_) return;
    // zlib's API takes a non-const pointer but does not modify the input.
    stream_.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(chunk.data()));
    stream_.avail_in = static_cast<uInt>(chunk.size());
    int rc = Z_OK;
    do {
      stream_.next_out = out_;
      stream_.avail_out = sizeof out_;
      rc = deflate(&stream_, flush);
      if (rc == Z_STREAM_ERROR) {
        error_ = Error{Errc::kInternal, "deflate failed for " + path_, 0};
        return;
      }
      PlainFileSink::write(std::string_view(reinterpret_cast<const char*>(out_),
                                            sizeof out_ - stream_.avail_out));
      if (error_) return;
    } while (stream_.avail_out == 0 || (flush == Z_FINISH && rc != Z_STREAM_END));
  }

  z_stream stream_{};
  bool initialized_ = false;
  Bytef out_[1 << 16];
};

}  // namespace

Result<std::unique_ptr<FileSink>> open_file_sink(const std::string& path, bool gzip) {
  UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
  if (!fd.valid()) return Error::from_errno("open " + path);
  if (!gzip) return std::unique_ptr<FileSink>(std::make_unique<PlainFileSink>(std::move(fd), path));
  auto sink = std::make_unique<GzipFileSink>(std::move(fd), path);
  SPROF_TRY_VOID(sink->init());
  return std::unique_ptr<FileSink>(std::move(sink));
}

}  // namespace sprof::profile::detail
