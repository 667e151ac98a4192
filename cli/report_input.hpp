// cli/report_input.hpp
//
// Opening a profile for `sprof report`, `export`, `flamegraph` and `diff`: a self-contained file
// is read with its embedded names; a Gecko file (--no-presymbolicate) is named from the local
// binaries by the symbolicator the server uses, and so is a perf.data file, imported on the fly
// (perf_data_input.hpp). Then the threads --process and --thread select.
#pragma once

#include <memory>
#include <string>
#include <variant>

#include "report_options.hpp"
#include "sprof/core/result.hpp"
#include "sprof/profile/profile.hpp"
#include "sprof/report/report_profile.hpp"
#include "sprof/report/thread_selection.hpp"

namespace sprof::cli {

struct OpenedProfile {
  report::ReportProfile profile;
  report::ThreadSet threads;  // points into `profile`, hence the unique_ptr below
  uint64_t heap_bytes = 0;    // open_profile_stacks with a heap view: the selected threads' bytes
};

// A profile file as read: a processed (self-contained) file's JSON text, or the Gecko form of a
// Gecko file or of a perf.data imported in memory (perf_data_input.hpp). Errors as open_profile's.
struct ProcessedJson {
  std::string text;
};
using ProfileInput = std::variant<ProcessedJson, profile::Profile>;
Result<ProfileInput> read_profile_input(const std::string& path, const SymbolSources& symbols);

// Errors name the file: not readable or not a profile (kNotFound, kMalformed, kUnsupported, ...),
// no such process or thread (kNotFound), no samples in the selected threads (kInvalidArgument).
Result<std::unique_ptr<OpenedProfile>> open_profile(const ProfileSelection& selection);

// open_profile for the views of stacks (flamegraph, export): with `heap`, each stack weighs the
// bytes it allocated or retains instead of its samples (report/heap_weights.hpp).
Result<std::unique_ptr<OpenedProfile>> open_profile_stacks(ProfileSelection selection,
                                                           HeapView heap);

// Prints `error` as sprof's message about the profile and returns the exit code for it.
int report_open_error(const ProfileSelection& selection, const Error& error);

}  // namespace sprof::cli
