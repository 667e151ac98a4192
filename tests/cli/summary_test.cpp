// The end-of-recording summary's pure parts (cli/summary.cpp).
#include "summary.hpp"

#include <doctest/doctest.h>

#include "sprof/unwind/unwinder.hpp"

using sprof::cli::stack_size_hint;
using sprof::convert::RecordingStats;
using sprof::unwind::UnwindStop;

namespace {

RecordingStats with_truncated(uint64_t unwound, uint64_t truncated) {
  RecordingStats s;
  s.unwound_samples = unwound;
  s.unwind_stops[static_cast<size_t>(UnwindStop::kStackTruncated)] = truncated;
  s.unwind_stops[static_cast<size_t>(UnwindStop::kComplete)] = unwound - truncated;
  return s;
}

}  // namespace

TEST_CASE("more than 5 % of stacks past the copied stack suggests the largest copy") {
  const std::string hint = stack_size_hint(with_truncated(1000, 280), 16384);
  CHECK(hint ==
        "sprof: 28% of stacks were deeper than the 16384 bytes copied per sample; "
        "--stack-size 65528 copies the most the kernel allows");
}

TEST_CASE("no hint at 5 % or less, without samples, or when the copy is already the largest") {
  CHECK(stack_size_hint(with_truncated(1000, 50), 16384).empty());
  CHECK(stack_size_hint(with_truncated(0, 0), 16384).empty());
  CHECK(stack_size_hint(with_truncated(1000, 900), 65528).empty());
}

TEST_CASE("the allocation hook's samples are said as a share of the on-CPU samples") {
  RecordingStats s;
  s.samples = 5000;
  s.off_cpu_samples = 1000;  // not CPU the hook could have taken
  s.heap.hook_samples = 56;
  CHECK(sprof::cli::heap_hook_line(s) ==
        "sprof: heap hooks: 56 samples (1.4% of CPU samples) were spent in sprof's allocation "
        "hook");
  s.heap.hook_samples = 1;
  CHECK(sprof::cli::heap_hook_line(s).starts_with("sprof: heap hooks: 1 sample (0.0% "));
  s.heap.hook_samples = 0;
  CHECK(sprof::cli::heap_hook_line(s).empty());
}

TEST_CASE("switch-ins without a pick are said where no scheduler counts correct them") {
  RecordingStats s;
  s.event_name = "cpu-clock";
  s.cpu_switch_ins = 130;
  s.cpu_switch_ins_without_pick = 120;
  const std::string said = "120 of 130 switch-ins without a CPU-wide record of the pick";
  CHECK(sprof::cli::details_line(s, 1000).find(said) != std::string::npos);
  s.cpu_counts = 25;  // the counts settle what the late switch-ins left out
  CHECK(sprof::cli::details_line(s, 1000).find("switch-ins") == std::string::npos);
  s.cpu_counts = 0;
  s.cpu_switch_ins_without_pick = 0;
  CHECK(sprof::cli::details_line(s, 1000).find("switch-ins") == std::string::npos);
}
