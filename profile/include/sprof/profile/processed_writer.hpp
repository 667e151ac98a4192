// sprof/profile/processed_writer.hpp
//
// Serialises a `Profile` together with the symbols of its native frames as a self-contained
// profile: the Firefox Profiler's *processed* format, version 42 (docs/self-contained-profiles.md
// says why that format and version). It holds what the Gecko route cannot: each native frame's
// lib-relative address, inline frames with their depth, the function's start and size, and the
// file and line of every frame, with `meta.symbolicated` true so no symbol server is asked.
//
// The result is what the Firefox Profiler itself builds when it loads the Gecko form of the same
// profile and symbolicates it against a server that answers with these symbols: one frame per
// inline depth, return addresses moved back into their call instruction, one func per (name,
// file, lib), a lib that was not found left with its raw addresses. Libs move to the profile level,
// deduplicated by (debugName, breakpadId); every thread keeps its own tables and strings.
//
// Streams: the JSON is produced in chunks into a sink. Output is deterministic.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "sprof/core/result.hpp"
#include "sprof/profile/native_symbols.hpp"
#include "sprof/profile/profile.hpp"

namespace sprof::profile {

// `meta.preprocessedProfileVersion` of the files sprof writes.
inline constexpr int kProcessedProfileVersion = 42;

void write_processed_json(const Profile& profile, const ProfileSymbols& symbols,
                          const std::function<void(std::string_view)>& sink);

// Convenience for tests: the whole document as a string.
std::string processed_json_string(const Profile& profile, const ProfileSymbols& symbols);

// Writes `path`; gzip-compressed when the name ends in ".gz". Returns the bytes written.
Result<uint64_t> write_processed_file(const Profile& profile, const ProfileSymbols& symbols,
                                      const std::string& path);

}  // namespace sprof::profile
