// sprof/perfdata/recorded_build_ids.hpp
//
// The build-ids a perf.data file recorded for the binaries its processes mapped: the
// HEADER_BUILD_ID feature (perf record writes the build-id of every binary that has samples), the
// same entries as PERF_RECORD_HEADER_BUILD_ID records (perf inject), and MMAP2 records that carry
// a build-id (perf record --buildid-mmap). They are what an import checks this machine's files
// against, and what the profile's libs are named by (breakpadId, codeId).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "sprof/core/build_id.hpp"

namespace sprof::perfdata {

struct RecordedBuildId {
  std::string path;  // as the recording named it ("[kernel.kallsyms]", "[vdso]", a path)
  BuildId build_id;
  bool kernel = false;  // PERF_RECORD_MISC_KERNEL: the kernel or one of its modules
};

// Decodes one struct perf_record_header_build_id (header included), or nullopt when it is cut
// short or names no file. Entries of guest machines are nullopt too (sprof imports the host).
std::optional<RecordedBuildId> parse_build_id_entry(std::span<const uint8_t> record);

class RecordedBuildIds {
 public:
  void add(RecordedBuildId entry);
  // The build-ids recorded for `path` (a binary replaced during the recording has two), or
  // nullptr when the file recorded none.
  const std::vector<BuildId>* find(const std::string& path) const;
  // "[kernel.kallsyms]"'s, if recorded.
  std::optional<BuildId> kernel() const;
  size_t size() const { return by_path_.size(); }

 private:
  std::unordered_map<std::string, std::vector<BuildId>> by_path_;
};

}  // namespace sprof::perfdata
