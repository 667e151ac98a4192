// tests/unwind/unwind_walk_test.cpp
//
// Whole walks of `CfiUnwinder` over fake memory, a fake address space and hand-written rules:
// the frame sequence, how each frame is looked up, and every way a walk ends.
#include <doctest/doctest.h>

#include <cstring>
#include <map>
#include <memory>
#include <vector>

#include "sprof/unwind/cfi_unwinder.hpp"

namespace sprof::unwind {
namespace {

using elf::FrameRule;
using Kind = elf::RegisterRule::Kind;

constexpr uint64_t kStackBase = 0x7ffd0000;
constexpr uint64_t kModuleStart = 0x555500000000;
constexpr uint64_t kModuleBias = kModuleStart - 0x1000;  // svma = avma - bias

// Function layout of the fake module, in SVMAs.
constexpr uint64_t kLeaf = 0x2000;    // frameless: CFA = rsp + 8
constexpr uint64_t kMiddle = 0x3000;  // push %rbx: CFA = rsp + 16, rbx at CFA - 16
constexpr uint64_t kEntry = 0x4000;   // return address undefined (like _start)
constexpr uint64_t kNoCfi = 0x5000;   // no CFI
constexpr uint64_t kSigreturn = 0x6000;
constexpr uint64_t kFunctionSize = 0x100;

uint64_t avma(uint64_t svma) { return svma + kModuleBias; }

struct FakeStack {
  std::vector<uint8_t> bytes = std::vector<uint8_t>(4096, 0);
  void put(uint64_t address, uint64_t value) {
    REQUIRE(address + 8 <= kStackBase + bytes.size());
    std::memcpy(bytes.data() + (address - kStackBase), &value, 8);
  }
  StackMemory memory() const { return {kStackBase, bytes}; }
};

class OneModule final : public AddressSpace {
 public:
  OneModule() {
    module_.start = kModuleStart;
    module_.end = kModuleStart + 0x10000;
    module_.bias = kModuleBias;
    module_.path = "/fake/module";
  }
  const MappedFile* find(uint64_t a) const override {
    return a >= module_.start && a < module_.end ? &module_ : nullptr;
  }

 private:
  MappedFile module_;
};

struct LookupCall {
  uint64_t svma;
  bool is_return_address;
};

class FakeRules final : public RuleSource {
 public:
  explicit FakeRules(std::vector<LookupCall>* calls) : calls_(calls) {
    FrameRule leaf = frame(8);
    FrameRule middle = frame(16);
    middle.rule(elf::DwarfReg::kRbx) = {Kind::kOffset, 0, -16, {}};
    FrameRule entry = frame(8);
    entry.rule(elf::DwarfReg::kRip) = {Kind::kUndefined, 0, 0, {}};
    FrameRule stuck = frame(0);  // CFA = rsp: the caller would not be above its callee
    stuck.rule(elf::DwarfReg::kRip) = {Kind::kOffset, 0, 0, {}};
    rules_ = {{kLeaf, leaf}, {kMiddle, middle}, {kEntry, entry}, {kStuck, stuck}};
  }
  static constexpr uint64_t kStuck = 0x7000;

  CodeLookup lookup(const MappedFile&, sprof::Svma svma_address, bool is_return_address) override {
    const uint64_t svma = svma_address.value;
    calls_->push_back({svma, is_return_address});
    if (svma >= kSigreturn && svma < kSigreturn + kFunctionSize) {
      return {CodeLookup::Kind::kSigreturn, nullptr};
    }
    // Like the real cache: a return address belongs to the call instruction before it.
    const uint64_t pc = is_return_address ? svma - 1 : svma;
    for (auto& [start, rule] : rules_) {
      if (pc >= start && pc < start + kFunctionSize) return {CodeLookup::Kind::kRule, &rule};
    }
    return {};
  }

 private:
  static FrameRule frame(int64_t cfa_offset) {
    FrameRule rule;
    rule.cfa_kind = FrameRule::CfaKind::kRegOffset;
    rule.cfa_reg = static_cast<uint8_t>(elf::DwarfReg::kRsp);
    rule.cfa_offset = cfa_offset;
    rule.rule(elf::DwarfReg::kRip) = {Kind::kOffset, 0, -8, {}};
    return rule;
  }
  std::vector<LookupCall>* calls_;
  std::map<uint64_t, FrameRule> rules_;
};

UserRegs regs_at(uint64_t ip, uint64_t sp, uint64_t bp = 0) {
  UserRegs regs;
  regs.regs[static_cast<size_t>(PerfReg::kIp)] = ip;
  regs.regs[static_cast<size_t>(PerfReg::kSp)] = sp;
  regs.regs[static_cast<size_t>(PerfReg::kBp)] = bp;
  regs.regs[static_cast<size_t>(PerfReg::kBx)] = 0x1111;
  regs.valid = arch::x86_64::kUnwindRegsMask;
  return regs;
}

struct Walk {
  std::vector<LookupCall> calls;
  OneModule space;
  FakeStack stack;
  std::unique_ptr<CfiUnwinder> unwinder;
  UnwindResult result;
  explicit Walk(size_t max_frames = 256)
      : unwinder(std::make_unique<CfiUnwinder>(std::make_unique<FakeRules>(&calls), max_frames)) {}
  void run(const UserRegs& regs) { unwinder->unwind(regs, stack.memory(), space, result); }
};

// leaf (sp = base) <- middle (call site at kMiddle + 0x10) <- entry (call site at kEntry + 0x20)
void build_three_frames(FakeStack& stack) {
  stack.put(kStackBase, avma(kMiddle + 0x15));      // leaf's return address
  stack.put(kStackBase + 8, 0x2222);                // middle's saved rbx (CFA - 16)
  stack.put(kStackBase + 16, avma(kEntry + 0x25));  // middle's return address
}

}  // namespace

TEST_CASE("a walk through frameless frames ends at the thread entry") {
  Walk walk;
  build_three_frames(walk.stack);
  walk.run(regs_at(avma(kLeaf + 0x40), kStackBase));
  CHECK(walk.result.stop == UnwindStop::kComplete);
  REQUIRE(walk.result.frames.size() == 3);
  CHECK(walk.result.frames[0] == FrameAddress::ip(avma(kLeaf + 0x40)));
  CHECK(walk.result.frames[1] == FrameAddress::return_address(avma(kMiddle + 0x15)));
  CHECK(walk.result.frames[2] == FrameAddress::return_address(avma(kEntry + 0x25)));
}

TEST_CASE("frame 0 is looked up at its pc and callers as return addresses") {
  Walk walk;
  build_three_frames(walk.stack);
  walk.run(regs_at(avma(kLeaf + 0x40), kStackBase));
  REQUIRE(walk.calls.size() == 3);
  CHECK(walk.calls[0].svma == kLeaf + 0x40);
  CHECK_FALSE(walk.calls[0].is_return_address);
  CHECK(walk.calls[1].svma == kMiddle + 0x15);
  CHECK(walk.calls[1].is_return_address);
  CHECK(walk.calls[2].is_return_address);
}

TEST_CASE("a return address right after a noreturn call is unwound with its caller's rule") {
  // The call is the last instruction of `middle`: the return address is the first byte after
  // the function, where no rule (or another function's) applies.
  Walk walk;
  build_three_frames(walk.stack);
  walk.stack.put(kStackBase, avma(kMiddle + kFunctionSize));
  walk.run(regs_at(avma(kLeaf + 0x40), kStackBase));
  CHECK(walk.result.stop == UnwindStop::kComplete);
  CHECK(walk.result.frames.size() == 3);
}

TEST_CASE("a truncated stack copy stops the walk with the frames found so far") {
  Walk walk;
  build_three_frames(walk.stack);
  walk.stack.bytes.resize(16);  // middle's return address is not in the copy
  walk.run(regs_at(avma(kLeaf + 0x40), kStackBase));
  CHECK(walk.result.stop == UnwindStop::kStackTruncated);
  CHECK(walk.result.frames.size() == 2);
}

TEST_CASE("code without CFI is left through the frame-pointer chain") {
  Walk walk;
  // no-CFI frame with rbp -> [saved rbp, return address into middle] -> middle -> entry.
  const uint64_t fp = kStackBase + 0x100;
  walk.stack.put(fp, 0);
  walk.stack.put(fp + 8, avma(kMiddle + 0x15));
  walk.stack.put(fp + 16, 0x2222);
  walk.stack.put(fp + 24, avma(kEntry + 0x25));
  walk.run(regs_at(avma(kNoCfi + 0x10), kStackBase, fp));
  CHECK(walk.result.stop == UnwindStop::kComplete);
  REQUIRE(walk.result.frames.size() == 3);
  CHECK(walk.result.frames[1] == FrameAddress::return_address(avma(kMiddle + 0x15)));

  SUBCASE("and stops as no-cfi when there is no frame pointer either") {
    walk.run(regs_at(avma(kNoCfi + 0x10), kStackBase, 0));
    CHECK(walk.result.stop == UnwindStop::kNoCfi);
    CHECK(walk.result.frames.size() == 1);
  }
}

TEST_CASE("a caller without CFI whose frame pointer is 0 is the deepest frame") {
  // Like ld.so's _start: no CFI, rbp cleared before the first call.
  Walk walk;
  walk.stack.put(kStackBase, avma(kNoCfi + 0x25));  // leaf returns into the no-CFI code
  walk.run(regs_at(avma(kLeaf + 0x10), kStackBase, 0));
  CHECK(walk.result.stop == UnwindStop::kComplete);
  CHECK(walk.result.frames.size() == 2);
}

TEST_CASE("a pc outside every module stops as no-module unless rbp leads on") {
  Walk walk;
  walk.run(regs_at(0x1234, kStackBase, 0));
  CHECK(walk.result.stop == UnwindStop::kNoModule);
  CHECK(walk.result.frames.size() == 1);

  const uint64_t fp = kStackBase + 0x40;  // JIT frame with a frame pointer
  walk.stack.put(fp, 0);
  walk.stack.put(fp + 8, avma(kEntry + 0x25));
  walk.run(regs_at(0x1234, kStackBase, fp));
  CHECK(walk.result.stop == UnwindStop::kComplete);
  CHECK(walk.result.frames.size() == 2);
}

TEST_CASE("a signal trampoline resumes at the interrupted pc, which is not a return address") {
  Walk walk;
  // handler (frameless leaf) returns into the trampoline; the ucontext follows.
  walk.stack.put(kStackBase, avma(kSigreturn));
  const uint64_t uc = kStackBase + 8;
  const uint64_t interrupted_sp = kStackBase + 0x400;
  walk.stack.put(uc + 40 + 15 * 8, interrupted_sp);         // gregs[REG_RSP]
  walk.stack.put(uc + 40 + 16 * 8, avma(kMiddle + 0x30));   // gregs[REG_RIP]
  walk.stack.put(interrupted_sp + 8, avma(kEntry + 0x25));  // middle's return address
  walk.run(regs_at(avma(kLeaf + 0x10), kStackBase));
  CHECK(walk.result.stop == UnwindStop::kComplete);
  REQUIRE(walk.result.frames.size() == 4);
  CHECK(walk.result.frames[1] == FrameAddress::return_address(avma(kSigreturn)));
  CHECK(walk.result.frames[2] == FrameAddress::ip(avma(kMiddle + 0x30)));
  CHECK(walk.result.frames[3] == FrameAddress::return_address(avma(kEntry + 0x25)));
  // The interrupted frame is looked up at its exact pc.
  REQUIRE(walk.calls.size() == 4);
  CHECK(walk.calls[2].svma == kMiddle + 0x30);
  CHECK_FALSE(walk.calls[2].is_return_address);
}

TEST_CASE("a rule that does not move the stack pointer up stops as no-progress") {
  Walk walk;
  walk.stack.put(kStackBase, avma(kLeaf + 0x20));
  walk.run(regs_at(avma(FakeRules::kStuck + 0x10), kStackBase));
  CHECK(walk.result.stop == UnwindStop::kNoProgress);
  CHECK(walk.result.frames.size() == 1);
}

TEST_CASE("deep recursion is cut at the maximum depth") {
  Walk walk(16);
  // Every frame of `leaf` returns into `leaf` again, one slot higher.
  for (uint64_t i = 0; i < 100; ++i) walk.stack.put(kStackBase + 8 * i, avma(kLeaf + 0x21));
  walk.run(regs_at(avma(kLeaf + 0x10), kStackBase));
  CHECK(walk.result.stop == UnwindStop::kMaxDepth);
  CHECK(walk.result.frames.size() == 16);
}

TEST_CASE("a zero return address ends the walk as complete") {
  Walk walk;
  walk.stack.put(kStackBase, 0);
  walk.run(regs_at(avma(kLeaf + 0x10), kStackBase));
  CHECK(walk.result.stop == UnwindStop::kComplete);
  CHECK(walk.result.frames.size() == 1);
}

TEST_CASE("a sample without user registers yields no frames") {
  Walk walk;
  UserRegs none;
  walk.run(none);
  CHECK(walk.result.stop == UnwindStop::kNoRegisters);
  CHECK(walk.result.frames.empty());
}

}  // namespace sprof::unwind
