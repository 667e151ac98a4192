// sprof_test/sample_profile.hpp
//
// A small hand-built `profile::Profile` that exercises every part of the Gecko writer: three
// processes (root, child, grandchild: all flat in `processes`), unsorted and overlapping libs, a
// kernel lib at 0xffffffff81000000 with an unaligned end, user/kernel/idle stacks, samples out of
// time order, markers of every phase with a `UniqueString` field, and a thread name that is not
// valid UTF-8. Shared by the writer, golden and conformance tests (link `sprof_sample_profile`).
#pragma once

#include <cstddef>

#include "sprof/profile/native_symbols.hpp"
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
  static constexpr const char* kWorkerRawName =
      "work\xff\xfe"
      "er";
  static constexpr const char* kWorkerWrittenName =
      "work\xEF\xBF\xBD\xEF\xBF\xBD"
      "er";
  // The root's "demo" mapping, and its main thread's user leaf (a sample leaf only), and the
  // kernel frame that is both a sample leaf and the caller of the idle stack.
  static constexpr uint64_t kDemoStart = 0x555555554000ULL;
  static constexpr uint64_t kDemoOffset = 0x1000;
  static constexpr uint64_t kDemoLeafAvma = 0x555555555123ULL;
  static constexpr uint64_t kDemoLeaf = kDemoLeafAvma - (kDemoStart - kDemoOffset);
  static constexpr uint64_t kKernelFrameAvma = 0xffffffff81234567ULL;
  static constexpr uint64_t kKernelFrame = kKernelFrameAvma - kKernelStart;
  // The child's leaf (in its own "child-cmd" mapping at the same place as "demo").
  static constexpr uint64_t kChildLeafAvma = 0x555555555020ULL;
  static constexpr uint64_t kChildLeaf = kChildLeafAvma - (kDemoStart - kDemoOffset);
};

// What `make_sample_symbols` answers (names demangled, as the symbolicator gives them).
struct SampleSymbolFacts {
  static constexpr const char* kDemoLeafFunction = "demo::compute(int)";
  static constexpr uint64_t kDemoLeafFunctionStart = SampleProfileFacts::kDemoLeaf - 0x23;
  static constexpr uint64_t kDemoLeafFunctionSize = 0x40;
  static constexpr const char* kDemoFile = "/src/demo.cpp";
  static constexpr uint32_t kDemoLeafLine = 12;
  // The leaf's inline chain, outermost first.
  static constexpr const char* kInlineOuter = "demo::scale(int)";
  static constexpr const char* kInlineInner = "demo::square(int)";
  static constexpr const char* kInlineFile = "/src/math.h";
  static constexpr uint32_t kInlineOuterLine = 9;
  static constexpr uint32_t kInlineInnerLine = 3;
  static constexpr const char* kDemoOtherFunction = "main";  // every other "demo" address
  static constexpr const char* kLibcFunction = "__libc_start_call_main";  // every libc address
  static constexpr const char* kChildFunction = "child_main";  // the child's non-leaf addresses
};

// Symbols for `make_sample_profile()` as a symbolicator would answer: "demo" and libc named,
// the demo leaf with an inline chain of two, the child's leaf without a function, and the
// kernel, libpartial and the grandchild not found.
profile::ProfileSymbols make_sample_symbols(const profile::Profile& profile);

profile::Profile make_sample_profile();

}  // namespace sprof::test
