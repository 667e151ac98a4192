#include "file_sink.hpp"

#include <optional>

#include "parallel_gzip.hpp"
#include "sprof/core/replacing_file.hpp"

namespace sprof::profile::detail {

namespace {

class PlainFileSink : public FileSink {
 public:
  explicit PlainFileSink(ReplacingFile file) : file_(std::move(file)), path_(file_.path()) {}

  void write(std::string_view chunk) override {
    if (error_) return;
    if (auto written = write_bytes(chunk); !written) error_ = written.error();
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
  Result<void> write_bytes(std::string_view bytes) {
    SPROF_TRY_VOID(file_.write(bytes));
    bytes_ += bytes.size();
    return ok();
  }

  ReplacingFile file_;
  std::string path_;
  std::optional<Error> error_;
  uint64_t bytes_ = 0;
};

// Level 1 (ParallelGzip's default): a profile is written on the way to its first view (record's
// exit-to-URL time, all of import's output), and on profile JSON it deflates about 4x faster
// than the default level 6 for about 15 % more bytes (docs/benchmarks.md, "Import"). The blocks
// are compressed on several threads (parallel_gzip.hpp); the gzip header has no name and mtime 0,
// so the same JSON always gives the same bytes.
class GzipFileSink : public PlainFileSink {
 public:
  explicit GzipFileSink(ReplacingFile file)
      : PlainFileSink(std::move(file)),
        gzip_([this](std::string_view bytes) { return write_bytes(bytes); }) {}

  void write(std::string_view chunk) override {
    if (error_) return;
    if (auto written = gzip_.write(chunk); !written) keep(written.error());
  }

  Result<uint64_t> finish() override {
    if (!error_) {
      if (auto finished = gzip_.finish(); !finished) keep(finished.error());
    }
    return PlainFileSink::finish();
  }

 private:
  // Write errors name the file already; zlib's (kInternal) do not.
  void keep(const Error& error) {
    error_ = error.code == Errc::kInternal ? error.with_context("compressing " + path_) : error;
  }

  ParallelGzip gzip_;
};

}  // namespace

std::unique_ptr<FileSink> open_file_sink(ReplacingFile file, bool gzip) {
  if (!gzip) return std::make_unique<PlainFileSink>(std::move(file));
  return std::make_unique<GzipFileSink>(std::move(file));
}

}  // namespace sprof::profile::detail
