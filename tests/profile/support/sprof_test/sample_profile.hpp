// sprof_test/sample_profile.hpp
//
// A small hand-built `profile::Profile` that exercises every part of the Gecko writer: three
// processes (root, child, grandchild: all flat in `processes`), unsorted and overlapping libs, a
// kernel lib at 0xffffffff81000000 with an unaligned end, user/kernel/idle stacks, samples out of
// time order, markers of every phase with a `UniqueString` field, and a thread name that is not
// valid UTF-8. Shared by the writer, golden and conformance tests (link `sprof_sample_profile`).
#pragma once

#include <cstddef>

#include "sprof/profile/profile.hpp"

namespace sprof::test {

// The facts the tests assert about `make_sample_profile()`, kept next to the builder.
struct SampleProfileFacts {
  static constexpr size_t kProcessCount = 3;
  static constexpr int64_t kRootPid = 4242;
  static constexpr int64_t kChildPid = 4300;
  static constexpr int64_t kGrandchildPid = 4301;
  static constexpr int64_t kWorkerTid = 4243;
  static constexpr size_t kRootMainSamples = 7;  // of which 2 are idle
  static constexpr size_t kRootMainIdleSamples = 2;
  static constexpr size_t kWorkerSamples = 4;
  static constexpr size_t kChildSamples = 3;
  static constexpr size_t kGrandchildSamples = 2;
  // Marker rows in the JSON, and markers after the front end pairs IntervalStart/IntervalEnd.
  static constexpr size_t kRootMainMarkerRows = 5;
  static constexpr size_t kRootMainMarkers = 4;
  static constexpr size_t kWorkerMarkerRows = 2;
  static constexpr size_t kWorkerMarkers = 1;
  static constexpr size_t kChildMarkers = 1;
  static constexpr uint64_t kKernelStart = 0xffffffff81000000ULL;
  static constexpr uint64_t kKernelEndUnaligned = 0xffffffff81e00123ULL;
  static constexpr uint64_t kKernelEndRounded = 0xffffffff81e01000ULL;
  // "work\xff\xfeer": invalid bytes, each written as U+FFFD.
  static constexpr const char* kWorkerRawName = "work\xff\xfe" "er";
  static constexpr const char* kWorkerWrittenName = "work\xEF\xBF\xBD\xEF\xBF\xBD" "er";
};

profile::Profile make_sample_profile();

}  // namespace sprof::test
