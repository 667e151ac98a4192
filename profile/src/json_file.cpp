#include "json_file.hpp"

#include "file_sink.hpp"

namespace sprof::profile::detail {

Result<uint64_t> write_json_file(const std::string& path,
                                 const std::function<void(const ChunkSink&)>& produce) {
  const bool gzip = path.size() >= 3 && path.compare(path.size() - 3, 3, ".gz") == 0;
  SPROF_TRY(auto sink, open_file_sink(path, gzip));
  produce([&](std::string_view chunk) { sink->write(chunk); });
  auto written = sink->finish();
  // On failure nothing was written at `path` (an older profile there is kept) and the partial
  // temporary file is gone (open_file_sink writes beside it and renames when complete).
  if (!written) return std::move(written).error().with_context("writing profile");
  return written;
}

}  // namespace sprof::profile::detail
