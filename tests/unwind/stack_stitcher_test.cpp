// StackStitcher (unwind/include/sprof/unwind/stack_stitcher.hpp): stacks deeper than the copied
// stack are completed from the same thread's earlier walks, only where a frame's return address and
// CFA both match.
#include "sprof/unwind/stack_stitcher.hpp"

#include <doctest/doctest.h>

using sprof::FrameAddress;
using sprof::unwind::StackStitcher;
using sprof::unwind::UnwindResult;
using sprof::unwind::UnwindStop;

namespace {

// A walk: the sampled PC, then return addresses, each with its CFA.
UnwindResult walk(uint64_t ip, std::initializer_list<std::pair<uint64_t, uint64_t>> callers,
                  uint64_t ip_cfa, UnwindStop stop) {
  UnwindResult r;
  r.frames.push_back(FrameAddress::ip(ip));
  r.cfas.push_back(ip_cfa);
  for (const auto& [address, cfa] : callers) {
    r.frames.push_back(FrameAddress::return_address(address));
    r.cfas.push_back(cfa);
  }
  r.stop = stop;
  return r;
}

// main (0x400, CFA 0x1300) -> parse (0x300, 0x1200) -> expr (0x200, 0x1100) -> leaf (ip).
UnwindResult complete_walk() {
  return walk(0x100, {{0x200, 0x1100}, {0x300, 0x1200}, {0x400, 0x1300}}, 0x1000,
              UnwindStop::kComplete);
}

// Activates the stitcher as a thread's first truncated stack does.
void activate(StackStitcher& s) {
  auto first = walk(0x900, {}, 0x800, UnwindStop::kStackTruncated);
  CHECK_FALSE(s.complete(first));
}

}  // namespace

TEST_CASE(
    "a walk that ran out of stack at a frame an earlier walk passed gets that walk's callers") {
  StackStitcher s;
  activate(s);
  auto complete = complete_walk();
  CHECK_FALSE(s.complete(complete));
  // Deeper now: the copy ended at parse's frame (return address 0x300 at CFA 0x1200).
  auto deep = walk(0x180, {{0x250, 0x0f80}, {0x300, 0x1200}}, 0x0f00, UnwindStop::kStackTruncated);
  CHECK(s.complete(deep));
  CHECK(deep.stop == UnwindStop::kComplete);
  REQUIRE(deep.frames.size() == 4);
  CHECK(deep.frames[3] == FrameAddress::return_address(0x400));
  CHECK(deep.cfas[3] == 0x1300);
}

TEST_CASE(
    "the same return address at another CFA, or another frame at the same CFA, never stitches") {
  StackStitcher s;
  activate(s);
  auto complete = complete_walk();
  s.complete(complete);
  auto other_depth = walk(0x180, {{0x300, 0x1208}}, 0x0f00, UnwindStop::kStackTruncated);
  CHECK_FALSE(s.complete(other_depth));
  CHECK(other_depth.stop == UnwindStop::kStackTruncated);
  CHECK(other_depth.frames.size() == 2);
  auto other_site = walk(0x180, {{0x304, 0x1200}}, 0x0f00, UnwindStop::kStackTruncated);
  CHECK_FALSE(s.complete(other_site));
  CHECK(other_site.frames.size() == 2);
  // The sampled PC itself (not a return address) at the same address is another frame too.
  auto as_ip = walk(0x300, {}, 0x1200, UnwindStop::kStackTruncated);
  CHECK_FALSE(s.complete(as_ip));
}

TEST_CASE("steps learnt from truncated walks carry a walk on until it meets a complete one") {
  StackStitcher s;
  activate(s);
  auto complete = complete_walk();
  s.complete(complete);
  // A truncated walk teaches expr2 (0x260 at 0x1180) -> parse (0x300 at 0x1200).
  auto middle =
      walk(0x170, {{0x260, 0x1180}, {0x300, 0x1200}}, 0x1170, UnwindStop::kStackTruncated);
  CHECK(s.complete(middle));
  // A deeper walk that stops at expr2 is completed through parse and main.
  auto deeper = walk(0x120, {{0x260, 0x1180}}, 0x0e00, UnwindStop::kStackTruncated);
  CHECK(s.complete(deeper));
  REQUIRE(deeper.frames.size() == 4);
  CHECK(deeper.frames[2] == FrameAddress::return_address(0x300));
  CHECK(deeper.frames[3] == FrameAddress::return_address(0x400));
}

TEST_CASE("a walk with nothing to match stays truncated, keeping the callers it did learn") {
  StackStitcher s;
  activate(s);
  auto lonely = walk(0x180, {{0x250, 0x0f80}}, 0x0f00, UnwindStop::kStackTruncated);
  CHECK_FALSE(s.complete(lonely));
  CHECK(lonely.stop == UnwindStop::kStackTruncated);
  CHECK(lonely.frames.size() == 2);
}

TEST_CASE("nothing is learnt until the thread's first truncated stack, and clear forgets") {
  StackStitcher s;
  auto complete = complete_walk();
  s.complete(complete);  // not learnt: the stitcher is not active yet
  auto deep = walk(0x180, {{0x300, 0x1200}}, 0x0f00, UnwindStop::kStackTruncated);
  CHECK_FALSE(s.complete(deep));
  auto again = complete_walk();
  s.complete(again);  // learnt now
  auto deep2 = walk(0x180, {{0x300, 0x1200}}, 0x0f00, UnwindStop::kStackTruncated);
  CHECK(s.complete(deep2));
  s.clear();
  auto deep3 = walk(0x180, {{0x300, 0x1200}}, 0x0f00, UnwindStop::kStackTruncated);
  CHECK_FALSE(s.complete(deep3));
}
