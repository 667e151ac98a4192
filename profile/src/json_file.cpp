#include "json_file.hpp"

#include "file_sink.hpp"

namespace sprof::profile::detail {

Result<uint64_t> write_json_file(ReplacingFile file,
                                 const std::function<void(const ChunkSink&)>& produce) {
  const bool gzip = file.path().ends_with(".gz");
  const auto sink = open_file_sink(std::move(file), gzip);
  produce([&](std::string_view chunk) { sink->write(chunk); });
  auto written = sink->finish();
  // On failure nothing was written at `path` (an older profile there is kept) and the partial
  // temporary file is gone (open_file_sink writes beside it and renames when complete).
  if (!written) return std::move(written).error().with_context("writing profile");
  return written;
}

Result<uint64_t> write_json_file(const std::string& path,
                                 const std::function<void(const ChunkSink&)>& produce) {
  SPROF_TRY(ReplacingFile file, ReplacingFile::create(path));
  return write_json_file(std::move(file), produce);
}

}  // namespace sprof::profile::detail
