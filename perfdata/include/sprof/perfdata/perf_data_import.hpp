// sprof/perfdata/perf_data_import.hpp
//
// `sprof import`: a perf.data file in, the profile a live recording of the same run would have
// given out. The file's events become the converter's event table and `SourceDescription` (so
// the converter's options, the unwinder and the meta are made by the same functions as for a
// live recording); its records go through the same converter; stacks recorded with
// `--call-graph dwarf` are unwound by sprof's CFI unwinder on this machine's binaries, checked
// against the file's build-ids (build_id_checked_files.hpp).
//
// Time: the profile starts at the file's first timestamped record. Its wall-clock start comes
// from HEADER_CLOCK_DATA when perf recorded one (`perf record -k CLOCK_MONOTONIC`); perf's
// default clock has no wall-clock reference in the file, so the start is then estimated from the
// file's modification time (perf writes the header when recording ends) less the recording's
// length, and the meta says so.
//
// Makes no system calls of its own: the bytes come from a `ByteSource`, the binaries from a
// `convert::HostFiles`.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sprof/convert/host.hpp"
#include "sprof/convert/stats.hpp"
#include "sprof/core/build_id.hpp"
#include "sprof/core/result.hpp"
#include "sprof/perf/record_stream.hpp"
#include "sprof/perfdata/build_id_checked_files.hpp"
#include "sprof/perfdata/byte_source.hpp"
#include "sprof/perfdata/data_section_source.hpp"
#include "sprof/profile/profile.hpp"
#include "sprof/profile/sample_spill.hpp"

namespace sprof::perfdata {

struct ImportOptions {
  std::vector<uint32_t> pids;      // --pid: keep only these processes (with `names`)
  std::vector<std::string> names;  // --name
  DataSectionSource::Options reading;
  // Where full blocks of samples wait for the profile (ConverterOptions::sample_spill).
  std::shared_ptr<profile::SampleSpill> sample_spill;
};

// Where the profile's wall-clock start came from.
enum class StartTimeSource { kClockData, kFileTime, kUnknown };
const char* start_time_source_name(StartTimeSource s);

// What the import found besides the profile, for the summary and the meta.
struct ImportReport {
  std::string file;
  bool pipe_mode = false;
  std::string perf_version, hostname, os_release, arch, command_line;
  std::vector<std::string> event_names;  // the events recorded; [0] is the one converted
  StartTimeSource start_time = StartTimeSource::kUnknown;
  DataSectionSource::Stats data;
  sprof::perf::RecordStream::Stats stream;
  uint64_t filtered_out_records = 0;  // records of processes --pid/--name did not select
  std::vector<BinaryCheck> binaries;
  std::optional<BuildId> kernel_build_id;  // recorded for [kernel.kallsyms]
  std::vector<std::string> notes;  // what was adjusted or could not be read, one sentence each
};

struct ImportedProfile {
  profile::Profile profile;
  convert::RecordingStats stats;
  ImportReport report;
};

// Errc::kMalformed / kUnsupported for files sprof cannot read (the message says why),
// Errc::kNotFound when --pid/--name selected no process.
Result<ImportedProfile> import_perf_data(ByteSource& bytes, convert::HostFiles& local_files,
                                         const ImportOptions& options);

}  // namespace sprof::perfdata
