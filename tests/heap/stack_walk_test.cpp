// The interposer's stack walk (heap/src/interposer/stack_walk.hpp) over a made-up stack with
// rules given per pc, and its rule cache (frame_rule_cache.hpp): a whole walk, and each way a walk
// gives up (the record then carries a stack copy instead).
#include "interposer/stack_walk.hpp"

#include <doctest/doctest.h>

#include <atomic>
#include <map>
#include <thread>
#include <vector>

#include "interposer/frame_rule_cache.hpp"

using namespace sprof::heap::interposer;

namespace {

// Rules by call-site address (a return address minus one); any other address has no FDE.
struct Rules {
  std::map<uint64_t, CachedRule> by_pc;
  static CachedRule find(void* self, uint64_t pc) {
    const auto& m = static_cast<Rules*>(self)->by_pc;
    const auto it = m.find(pc);
    return it == m.end() ? CachedRule{{}, RuleStatus::kNoFde} : it->second;
  }
};

CachedRule rsp_frame(int32_t cfa_offset) {
  FrameRule r{};
  r.cfa_register = kDwarfRsp;
  r.cfa_offset = cfa_offset;
  r.return_address = SavedAt::kCfaOffset;
  r.return_address_offset = -8;
  r.bp = SavedAt::kSameValue;
  return {r, RuleStatus::kFound};
}

CachedRule rbp_frame() {  // push %rbp; mov %rsp,%rbp
  FrameRule r{};
  r.cfa_register = kDwarfRbp;
  r.cfa_offset = 16;
  r.return_address = SavedAt::kCfaOffset;
  r.return_address_offset = -8;
  r.bp = SavedAt::kCfaOffset;
  r.bp_offset = -16;
  return {r, RuleStatus::kFound};
}

CachedRule outermost() {
  CachedRule c = rsp_frame(8);
  c.rule.return_address = SavedAt::kUndefined;
  return c;
}

// A stack of 64 words; word i is at address base + 8 i.
struct Stack {
  std::vector<uint64_t> words = std::vector<uint64_t>(64, 0);
  uint64_t at(size_t i) const { return reinterpret_cast<uint64_t>(&words[i]); }
  uint64_t end() const { return at(0) + words.size() * 8; }
};

constexpr uint64_t kLeafReturn = 0x1000;    // in a function with a 32-byte frame, no %rbp
constexpr uint64_t kMiddleReturn = 0x2000;  // in a function with a frame pointer
constexpr uint64_t kRootReturn = 0x3000;    // in _start

// The stack of leaf <- middle <- root as the walk sees it from the first return address.
struct Scene {
  Stack stack;
  Rules rules;
  WalkStart start{};
  Scene() {
    // Frame of the function that kLeafReturn returns into: sp = word 0, CFA = sp + 32 (word 4);
    // its return address (into middle) at CFA - 8 = word 3.
    start = {kLeafReturn, stack.at(0), 0};
    stack.words[3] = kMiddleReturn;
    // middle's frame: CFA = rbp + 16. Its saved %rbp at CFA - 16, its return address at CFA - 8.
    // The leaf's frame ends at word 4 (its CFA, middle's sp); middle's %rbp points at word 6.
    start.bp = stack.at(6);
    stack.words[6] = stack.at(20);  // the caller's %rbp (root does not use it)
    stack.words[7] = kRootReturn;
    rules.by_pc[kLeafReturn - 1] = rsp_frame(32);
    rules.by_pc[kMiddleReturn - 1] = rbp_frame();
    rules.by_pc[kRootReturn - 1] = outermost();
  }
  WalkResult walk(uint64_t* pcs, uint32_t max = 16) {
    return walk_stack(start, stack.end(), Rules::find, &rules, pcs, max);
  }
};

}  // namespace

TEST_CASE("stack walk: whole, through an rsp-based and an rbp-based frame to the outermost") {
  Scene s;
  uint64_t pcs[16] = {};
  const WalkResult w = s.walk(pcs);
  CHECK(w.end == WalkEnd::kOutermost);
  REQUIRE(w.frames == 3);
  CHECK(pcs[0] == kLeafReturn);
  CHECK(pcs[1] == kMiddleReturn);
  CHECK(pcs[2] == kRootReturn);
}

TEST_CASE("stack walk: each way it gives up") {
  Scene s;
  uint64_t pcs[16] = {};
  SUBCASE("a pc without a rule") {
    s.rules.by_pc.erase(kMiddleReturn - 1);
    const WalkResult w = s.walk(pcs);
    CHECK(w.end == WalkEnd::kNoRule);
    CHECK(w.frames == 2);
  }
  SUBCASE("a rule it does not evaluate") {
    s.rules.by_pc[kMiddleReturn - 1].status = RuleStatus::kUnsupported;
    CHECK(s.walk(pcs).end == WalkEnd::kNoRule);
  }
  SUBCASE("a CFA above the stack's end") {
    s.stack.words[6] = 0;
    s.start.bp = s.stack.end() + 64;
    CHECK(s.walk(pcs).end == WalkEnd::kBadStack);
  }
  SUBCASE("a CFA that does not grow (a loop)") {
    s.rules.by_pc[kLeafReturn - 1] = rsp_frame(0);
    CHECK(s.walk(pcs).end == WalkEnd::kBadStack);
  }
  SUBCASE("a CFA below the frame's sp") {
    s.start.bp = s.stack.at(0);  // CFA = rbp + 16 would be inside the leaf's frame
    CHECK(s.walk(pcs).end == WalkEnd::kBadStack);
  }
  SUBCASE("an rbp-based CFA once %rbp is unknown") {
    CachedRule lost = rsp_frame(32);
    lost.rule.bp = SavedAt::kUndefined;
    s.rules.by_pc[kLeafReturn - 1] = lost;
    CHECK(s.walk(pcs).end == WalkEnd::kNoRule);
  }
  SUBCASE("a zero return address") {
    s.stack.words[7] = 0;
    CHECK(s.walk(pcs).end == WalkEnd::kBadStack);
  }
  SUBCASE("more frames than the buffer holds") {
    const WalkResult w = s.walk(pcs, 2);
    CHECK(w.end == WalkEnd::kTooDeep);
    CHECK(w.frames == 2);
  }
}

TEST_CASE("frame rule cache: computes once per pc, keeps statuses, forgets on clear") {
  static FrameRuleCache cache;  // 192 KiB: not on the test's stack
  cache.clear();
  int computed = 0;
  const auto compute = [&](uint64_t pc, FrameRule& rule) {
    ++computed;
    rule = rsp_frame(static_cast<int32_t>(pc & 0xff)).rule;
    return pc == 0x5000 ? RuleStatus::kNoFde : RuleStatus::kFound;
  };
  CHECK(cache.lookup(0x4010, compute).rule.cfa_offset == 0x10);
  CHECK(cache.lookup(0x4010, compute).rule.cfa_offset == 0x10);
  CHECK(computed == 1);
  CHECK(cache.lookup(0x5000, compute).status == RuleStatus::kNoFde);
  CHECK(cache.lookup(0x5000, compute).status == RuleStatus::kNoFde);
  CHECK(computed == 2);
  cache.clear();
  CHECK(cache.lookup(0x4010, compute).rule.cfa_offset == 0x10);
  CHECK(computed == 3);
}

TEST_CASE("frame rule cache: threads that fill and read it at once never see a torn rule") {
  static FrameRuleCache cache;
  cache.clear();
  std::atomic<uint64_t> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      // 20,000 pcs over 8,192 slots: slots are taken over again and again.
      for (uint64_t round = 0; round < 20; ++round) {
        for (uint64_t i = 0; i < 20000; ++i) {
          const uint64_t pc = 0x10000 + (i * 7 + static_cast<uint64_t>(t)) * 16;
          const auto compute = [](uint64_t at, FrameRule& rule) {
            rule = rsp_frame(static_cast<int32_t>(at >> 4)).rule;
            rule.bp_offset = static_cast<int32_t>(at >> 4);
            return RuleStatus::kFound;
          };
          const CachedRule got = cache.lookup(pc, compute);
          const auto expect = static_cast<int32_t>(pc >> 4);
          if (got.rule.cfa_offset != expect || got.rule.bp_offset != expect) ++wrong;
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  CHECK(wrong.load() == 0);
}
