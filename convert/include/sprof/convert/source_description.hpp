// sprof/convert/source_description.hpp
//
// How a source's records were made, and the one place where that becomes the converter's
// options and the profile's meta, for every kind of source. A live recording describes the
// events it opened, the moment it started and what it launched or attached to; a recorded file
// describes what its header says; a test describes what it made up. From the events' attrs alone
// follow the sample interval, what a sample's period measures, whether CPU time comes from
// switch records and whether user stacks are unwound (DWARF) or taken from the callchain.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sprof/convert/host.hpp"
#include "sprof/convert/profile_converter.hpp"
#include "sprof/convert/stats.hpp"
#include "sprof/perf/event_table.hpp"
#include "sprof/profile/profile.hpp"
#include "sprof/unwind/unwinder.hpp"

namespace sprof::convert {

// Allocation recording (`sprof record --heap`, docs/heap.md): how the interposer sampled.
struct HeapDescription {
  uint64_t sample_interval_bytes = 0;  // mean bytes between samples; 0: every allocation
  uint32_t stack_copy_bytes = 0;
  bool free_stacks = false;  // --heap-free-stacks: frees were recorded with their stacks
  bool copy_stacks = false;  // --heap-stacks=copy: no stack was walked in the process
  std::string interposer_name = "libsprof-heap.so";  // its frames are not the program's
};

struct SourceDescription {
  // The events the records come from (the specs the source's EventTable was made of).
  // events[0] is the sampling event: its attr sets the interval and the meaning of a period.
  std::vector<perf::EventSpec> events;
  // The profile's time zero on the records' clock (CLOCK_MONOTONIC) and on the wall clock.
  uint64_t origin_monotonic_ns = 0;
  double origin_wall_ms = 0;
  // The profile's top-level process, and what the profile calls itself ("sprof: app").
  uint32_t root_pid = 0;
  std::string product = "sprof";
  // The machine the processes ran on (meta): logical CPUs, and "Linux x86_64" (empty: unknown).
  int logical_cpus = 0;
  std::string oscpu;
  // Set when the records include allocations. events[0] may then be a side-band event that
  // takes no samples (--no-cpu).
  std::optional<HeapDescription> heap;
};

// User stacks are unwound from the samples' registers and stack copies (some event copies them:
// DWARF mode) rather than read from the kernel's callchain (frame pointers).
bool unwinds_user_stacks(const SourceDescription& source);

// The unwinder `source` needs: the CFI unwinder reading the binaries from `files` when it
// unwinds user stacks or allocations, else null.
std::unique_ptr<unwind::Unwinder> make_unwinder(const SourceDescription& source, HostFiles& files);

// The converter's options for the records `source` describes. `proc` answers for processes the
// records do not describe; `unwinder` comes from make_unwinder (and must outlive the converter).
ConverterOptions converter_options(const SourceDescription& source, ProcAccess proc,
                                   unwind::Unwinder* unwinder);

// The profile's meta about the recording: the machine, and in meta.sprof the event, rate,
// unwinding mode and the lossy-but-normal counts of `stats` (after ProfileConverter::finish).
void describe_recording(profile::Meta& meta, const SourceDescription& source,
                        const RecordingStats& stats);

}  // namespace sprof::convert
