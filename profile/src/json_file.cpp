#include "json_file.hpp"

#include <cstdio>

#include "file_sink.hpp"

namespace sprof::profile::detail {

Result<uint64_t> write_json_file(const std::string& path,
                                 const std::function<void(const ChunkSink&)>& produce) {
  const bool gzip = path.size() >= 3 && path.compare(path.size() - 3, 3, ".gz") == 0;
  SPROF_TRY(auto sink, open_file_sink(path, gzip));
  produce([&](std::string_view chunk) { sink->write(chunk); });
  auto written = sink->finish();
  if (!written) {
    std::remove(path.c_str());  // no half-written profile left behind
    return std::move(written).error().with_context("writing profile");
  }
  return written;
}

}  // namespace sprof::profile::detail
