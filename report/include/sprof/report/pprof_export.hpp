// sprof/report/pprof_export.hpp
//
// A profile as pprof's profile.proto (github.com/google/pprof, proto/profile.proto), gzip'd, for
// `go tool pprof` and the tools that read it. The message is encoded by hand
// (src/protobuf_writer.hpp): sprof needs only to write it.
//
// - Sample types `samples/count` and `cpu/nanoseconds` (the samples' CPU deltas; without them,
//   the sample count times the interval), period `cpu/nanoseconds` of one interval.
// - One sample per distinct (thread, stack), labelled with its thread ("thread", "tid", "pid").
// - A location per (module, address) with its inline chain as `line` entries, innermost first;
//   a frame outside every module (kernel, JIT) gets a location of its own without an address.
// - Mappings per module with its path and build id (no address ranges: the file keeps only
//   module-relative addresses, which the locations hold); functions with name and file.
// The same samples and weights as the report (the same thread selection and idle rule).
//
// A memory profile (PprofOptions::memory, from a `record --heap` file) has go's heap profile's
// sample types instead: alloc_objects/count, alloc_space/bytes, inuse_objects/count and
// inuse_space/bytes per allocation stack (heap_weights.hpp; "inuse" is what is retained at the
// end), the objects left out when folded rows make block counts unknown.
#pragma once

#include <string>

#include "sprof/core/result.hpp"
#include "sprof/report/heap_weights.hpp"
#include "sprof/report/report_profile.hpp"
#include "sprof/report/report_view.hpp"
#include "sprof/report/thread_selection.hpp"

namespace sprof::report {

struct PprofOptions {
  bool memory = false;
  HeapWeight default_type = HeapWeight::kAllocated;  // memory: alloc_space or inuse_space
};

// The encoded (not yet compressed) profile.proto message.
std::string pprof_message(const ReportProfile& profile, const ThreadSet& threads,
                          const PprofOptions& options = {});

// `pprof_message` gzip-compressed, as pprof files are.
Result<std::string> pprof_gzip(const ReportProfile& profile, const ThreadSet& threads,
                               const PprofOptions& options = {});

}  // namespace sprof::report
