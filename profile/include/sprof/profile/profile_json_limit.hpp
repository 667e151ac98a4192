// sprof/profile/profile_json_limit.hpp
//
// How large a profile's JSON text sprof reads, so that reading and parsing it fit in memory.
// Parsing is what costs: simdjson's DOM parser sizes its buffers by the text (a tape of 8 bytes
// per text byte, structural indexes of 4, a string buffer of 5/3), and a text of small numbers
// ("0,0,0,...") fills them, so parsing n bytes can take 14 n of memory, plus the text and its
// padded copy. A 1 MB gzip inflating to 1 GB of such JSON once made `sprof load` reach 14 GB.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace sprof::profile {

// Bytes of memory that parsing one byte of JSON text may take, at most (see above, rounded up).
inline constexpr uint64_t kParseBytesPerJsonByte = 16;

// The Firefox Profiler parses a profile as one JavaScript string, and a string in Firefox holds
// at most 2^30 - 2 characters (in Chrome 2^29 - 24): a larger text could not be loaded anyway.
inline constexpr uint64_t kMaxProfileJsonBytes = uint64_t{1} << 30;

struct ProfileJsonLimit {
  uint64_t bytes = kMaxProfileJsonBytes;
  std::string why;  // for the refusal: "the most a profile can be", "... memory available"
};

// The limit for `available_bytes` of memory (nullopt: unknown): kMaxProfileJsonBytes, or less
// where the memory cannot hold the text's parse (available / kParseBytesPerJsonByte).
ProfileJsonLimit profile_json_limit(std::optional<uint64_t> available_bytes);

// The limit for this process now: the smaller of MemAvailable (/proc/meminfo) and the
// address-space limit (RLIMIT_AS, of which the parser's buffers are reserved whole).
ProfileJsonLimit profile_json_limit();

}  // namespace sprof::profile
