// sprof/profile/gecko_writer.hpp
//
// Serialises a `Profile` as Gecko profile JSON version 36 (docs/firefox-profiler-format.md, "Gecko
// profile: top level" to "Several processes", and "what the UI requires"): root process at the top
// level, every other process flat in `processes`, per-thread tables, libs sorted and 4096-aligned
// above 2^53. Output is deterministic for the same model.
//
// Streams: the JSON is produced in chunks into a sink, never as a whole document in memory.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "sprof/core/replacing_file.hpp"
#include "sprof/core/result.hpp"
#include "sprof/profile/profile.hpp"

namespace sprof::profile {

// Writes the JSON text in chunks to `sink`.
void write_gecko_json(const Profile& profile, const std::function<void(std::string_view)>& sink);

// Convenience for tests: the whole document as a string.
std::string gecko_json_string(const Profile& profile);

// Writes `path`; gzip-compressed when the name ends in ".gz". Returns the bytes written.
Result<uint64_t> write_gecko_file(const Profile& profile, const std::string& path);
// The same, into a file reserved before the profile was made (`ReplacingFile::reserve`).
Result<uint64_t> write_gecko_file(const Profile& profile, ReplacingFile file);

}  // namespace sprof::profile
