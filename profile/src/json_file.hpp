// Writing a profile document to a file, for both writers: gzip when the name ends in ".gz", and
// no half-written file left behind when writing fails.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "sprof/core/replacing_file.hpp"
#include "sprof/core/result.hpp"

namespace sprof::profile::detail {

using ChunkSink = std::function<void(std::string_view)>;

// Calls `produce` with a sink into `file` (created beside its path, or reserved earlier) and
// commits it; returns the bytes written to the file.
Result<uint64_t> write_json_file(ReplacingFile file,
                                 const std::function<void(const ChunkSink&)>& produce);
Result<uint64_t> write_json_file(const std::string& path,
                                 const std::function<void(const ChunkSink&)>& produce);

}  // namespace sprof::profile::detail
