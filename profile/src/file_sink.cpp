#include "file_sink.hpp"

#include <zlib.h>

#include <optional>

#include "sprof/core/replacing_file.hpp"

namespace sprof::profile::detail {

namespace {

class PlainFileSink : public FileSink {
 public:
  explicit PlainFileSink(ReplacingFile file) : file_(std::move(file)), path_(file_.path()) {}

  void write(std::string_view chunk) override {
    if (error_) return;
    if (auto r = file_.write(chunk); !r) {
      error_ = r.error();
      return;
    }
    bytes_ += chunk.size();
  }

  // After a failure the temporary file goes with `file_`; the target was never touched.
  Result<uint64_t> finish() override {
    if (!error_) {
      if (auto committed = file_.commit(); !committed) error_ = committed.error();
    }
    if (error_) return *error_;
    return bytes_;
  }

 protected:
  ReplacingFile file_;
  std::string path_;
  std::optional<Error> error_;
  uint64_t bytes_ = 0;
};

class GzipFileSink : public PlainFileSink {
 public:
  explicit GzipFileSink(ReplacingFile file) : PlainFileSink(std::move(file)) {}
  ~GzipFileSink() override {
    if (initialized_) deflateEnd(&stream_);
  }

  Result<void> init() {
    // windowBits 15 + 16 selects the gzip wrapper. No header fields are set, so the mtime is 0
    // and the same JSON always gives the same bytes. Level 1: a profile is written on the way to
    // its first view (record's exit-to-URL time, all of import's output), and on profile JSON
    // it deflates about 4x faster than the default level 6 for about 15 % more bytes
    // (docs/benchmarks.md, "Import").
    if (deflateInit2(&stream_, Z_BEST_SPEED, Z_DEFLATED, 15 + 16, 8,
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
  SPROF_TRY(ReplacingFile file, ReplacingFile::create(path));
  if (!gzip) return std::unique_ptr<FileSink>(std::make_unique<PlainFileSink>(std::move(file)));
  auto sink = std::make_unique<GzipFileSink>(std::move(file));
  SPROF_TRY_VOID(sink->init());
  return std::unique_ptr<FileSink>(std::move(sink));
}

}  // namespace sprof::profile::detail
