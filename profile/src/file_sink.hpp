// Output files for the Gecko writer: plain, or one gzip member compressed on several threads
// (parallel_gzip.hpp; the front end gunzips any input starting with 1f 8b 08;
// docs/firefox-profiler-format.md, "Recognising the file"). Chunks are written (or compressed) as
// they come, so a profile of any size needs only a bounded buffer.
//
// `write` has no return value because it is called from `JsonWriter`'s flush callback; the first
// failure is kept, later writes are skipped, and `finish` reports it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "sprof/core/replacing_file.hpp"
#include "sprof/core/result.hpp"

namespace sprof::profile::detail {

class FileSink {
 public:
  virtual ~FileSink() = default;
  virtual void write(std::string_view chunk) = 0;
  // Flushes the remaining data, closes the file and returns its size in bytes.
  virtual Result<uint64_t> finish() = 0;
};

// Writes through `file`: an existing file at its path stays as it was until `finish` succeeds,
// and is kept when anything fails. Compresses with gzip when `gzip` is set.
std::unique_ptr<FileSink> open_file_sink(ReplacingFile file, bool gzip);

}  // namespace sprof::profile::detail
