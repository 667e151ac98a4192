// tests/unwind/unwind_rule_test.cpp
//
// CFI rule evaluation, the signal-frame restore and the frame-pointer step over synthetic stacks
// (framehop-style fake memory): every input is spelled out here, nothing is read from files.
#include <doctest/doctest.h>

#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "sprof/unwind/cfi_rule_evaluator.hpp"
#include "sprof/unwind/frame_pointer_unwinder.hpp"
#include "sprof/unwind/sigreturn_frame.hpp"

namespace sprof::unwind {
namespace {

using elf::CfiOp;
using elf::CfiOpcode;
using elf::FrameRule;
using elf::RegisterRule;
using Kind = RegisterRule::Kind;

constexpr uint64_t kStackBase = 0x7ffd0000;

// A stack copy starting at kStackBase, written by 8-byte slots.
struct FakeStack {
  std::vector<uint8_t> bytes;
  explicit FakeStack(size_t size) : bytes(size, 0) {}
  void put(uint64_t address, uint64_t value) {
    REQUIRE(address >= kStackBase);
    REQUIRE(address + 8 <= kStackBase + bytes.size());
    std::memcpy(bytes.data() + (address - kStackBase), &value, 8);
  }
  StackMemory memory() const { return {kStackBase, bytes}; }
};

FrameRule rsp_rule(int64_t cfa_offset) {
  FrameRule rule;
  rule.cfa_kind = FrameRule::CfaKind::kRegOffset;
  rule.cfa_reg = static_cast<uint8_t>(DwarfReg::kRsp);
  rule.cfa_offset = cfa_offset;
  rule.rule(DwarfReg::kRip) = {Kind::kOffset, 0, -8, {}};
  return rule;
}

elf::CfiExprRef add_ops(FrameRule& rule, std::vector<CfiOp> ops) {
  elf::CfiExprRef ref{static_cast<uint16_t>(rule.ops.size()), static_cast<uint16_t>(ops.size())};
  rule.ops.insert(rule.ops.end(), ops.begin(), ops.end());
  return ref;
}

CfiOp op(CfiOpcode code, uint64_t a = 0, uint64_t b = 0) { return {code, a, b}; }
CfiOp breg(unsigned reg, int64_t offset) {
  return {static_cast<CfiOpcode>(static_cast<uint8_t>(CfiOpcode::kBreg0) + reg),
          static_cast<uint64_t>(offset), 0};
}
CfiOp lit(unsigned n) {
  return {static_cast<CfiOpcode>(static_cast<uint8_t>(CfiOpcode::kLit0) + n), 0, 0};
}

FrameRegisters regs_at(uint64_t pc, uint64_t sp) {
  FrameRegisters r;
  r.set(DwarfReg::kRip, pc);
  r.set(DwarfReg::kRsp, sp);
  return r;
}

}  // namespace

TEST_CASE("a frameless function's rule finds the return address at CFA - 8") {
  FakeStack stack(256);
  stack.put(kStackBase, 0x401234);
  FrameRegisters callee = regs_at(0x402000, kStackBase);
  callee.set(DwarfReg::kRbx, 77);
  callee.set(DwarfReg::kRax, 5);
  FrameRegisters caller;
  REQUIRE(apply_frame_rule(rsp_rule(8), callee, stack.memory(), caller) == StepStatus::kOk);
  CHECK(caller.pc() == 0x401234);
  CHECK(caller.sp() == kStackBase + 8);
  CHECK(caller.get(DwarfReg::kRbx) == 77);  // same value: the psABI default for callee-saved
  CHECK_FALSE(caller.has(DwarfReg::kRax));  // call-clobbered: unknown in the caller
}

TEST_CASE("callee-saved registers come back from their save slots") {
  FakeStack stack(256);
  // push %rbp; push %rbx; sub $8,%rsp  =>  CFA = rsp + 32
  stack.put(kStackBase + 8, 0xb0b0);   // saved rbx (CFA - 24)
  stack.put(kStackBase + 16, 0xbebe);  // saved rbp (CFA - 16)
  stack.put(kStackBase + 24, 0x401000);
  FrameRule rule = rsp_rule(32);
  rule.rule(DwarfReg::kRbx) = {Kind::kOffset, 0, -24, {}};
  rule.rule(DwarfReg::kRbp) = {Kind::kOffset, 0, -16, {}};
  FrameRegisters callee = regs_at(0x402010, kStackBase);
  callee.set(DwarfReg::kRbx, 1);
  callee.set(DwarfReg::kRbp, 2);
  FrameRegisters caller;
  REQUIRE(apply_frame_rule(rule, callee, stack.memory(), caller) == StepStatus::kOk);
  CHECK(caller.get(DwarfReg::kRbx) == 0xb0b0);
  CHECK(caller.get(DwarfReg::kRbp) == 0xbebe);
  CHECK(caller.pc() == 0x401000);
  CHECK(caller.sp() == kStackBase + 32);
}

TEST_CASE("a CFA based on rbp follows the frame pointer") {
  FakeStack stack(512);
  const uint64_t rbp = kStackBase + 0x40;
  stack.put(rbp, 0x7777);        // saved rbp at CFA - 16
  stack.put(rbp + 8, 0x40abcd);  // return address at CFA - 8
  FrameRule rule;
  rule.cfa_kind = FrameRule::CfaKind::kRegOffset;
  rule.cfa_reg = static_cast<uint8_t>(DwarfReg::kRbp);
  rule.cfa_offset = 16;
  rule.rule(DwarfReg::kRip) = {Kind::kOffset, 0, -8, {}};
  rule.rule(DwarfReg::kRbp) = {Kind::kOffset, 0, -16, {}};
  FrameRegisters callee = regs_at(0x402000, kStackBase);
  callee.set(DwarfReg::kRbp, rbp);
  FrameRegisters caller;
  REQUIRE(apply_frame_rule(rule, callee, stack.memory(), caller) == StepStatus::kOk);
  CHECK(caller.pc() == 0x40abcd);
  CHECK(caller.sp() == rbp + 16);
  CHECK(caller.get(DwarfReg::kRbp) == 0x7777);
}

TEST_CASE("val_offset, register and same-value rules give values without reading memory") {
  FakeStack stack(64);
  stack.put(kStackBase, 0x401000);
  FrameRule rule = rsp_rule(8);
  rule.rule(DwarfReg::kR12) = {Kind::kValOffset, 0, 16, {}};
  rule.rule(DwarfReg::kR13) = {Kind::kRegister, static_cast<uint8_t>(DwarfReg::kRdi), 0, {}};
  rule.rule(DwarfReg::kR14) = {Kind::kUndefined, 0, 0, {}};
  FrameRegisters callee = regs_at(0x402000, kStackBase);
  callee.set(DwarfReg::kRdi, 0x5151);
  callee.set(DwarfReg::kR14, 9);
  callee.set(DwarfReg::kR15, 10);
  FrameRegisters caller;
  REQUIRE(apply_frame_rule(rule, callee, stack.memory(), caller) == StepStatus::kOk);
  CHECK(caller.get(DwarfReg::kR12) == kStackBase + 8 + 16);
  CHECK(caller.get(DwarfReg::kR13) == 0x5151);
  CHECK_FALSE(caller.has(DwarfReg::kR14));
  CHECK(caller.get(DwarfReg::kR15) == 10);
}

TEST_CASE("an undefined return address means the frame has no caller") {
  FakeStack stack(64);
  FrameRule rule = rsp_rule(8);
  rule.rule(DwarfReg::kRip) = {Kind::kUndefined, 0, 0, {}};
  FrameRegisters caller;
  CHECK(apply_frame_rule(rule, regs_at(0x401000, kStackBase), stack.memory(), caller) ==
        StepStatus::kNoCaller);
}

TEST_CASE("reads past the end of the stack copy report a truncated stack") {
  FakeStack stack(64);
  FrameRegisters caller;
  CHECK(apply_frame_rule(rsp_rule(0x1000), regs_at(0x401000, kStackBase), stack.memory(), caller) ==
        StepStatus::kStackTruncated);
}

TEST_CASE("reads below the stack copy and unusable rules are bad rules") {
  FakeStack stack(64);
  FrameRegisters caller;
  SUBCASE("CFA below sp") {
    CHECK(apply_frame_rule(rsp_rule(-64), regs_at(0x401000, kStackBase), stack.memory(), caller) ==
          StepStatus::kBadRule);
  }
  SUBCASE("unsupported CFA") {
    FrameRule rule = rsp_rule(8);
    rule.cfa_kind = FrameRule::CfaKind::kUnsupported;
    CHECK(apply_frame_rule(rule, regs_at(0x401000, kStackBase), stack.memory(), caller) ==
          StepStatus::kBadRule);
  }
  SUBCASE("CFA register not known in this frame") {
    FrameRule rule = rsp_rule(8);
    rule.cfa_reg = static_cast<uint8_t>(DwarfReg::kRbp);
    CHECK(apply_frame_rule(rule, regs_at(0x401000, kStackBase), stack.memory(), caller) ==
          StepStatus::kBadRule);
  }
  SUBCASE("unsupported return-address rule") {
    FrameRule rule = rsp_rule(8);
    rule.rule(DwarfReg::kRip).kind = Kind::kUnsupported;
    CHECK(apply_frame_rule(rule, regs_at(0x401000, kStackBase), stack.memory(), caller) ==
          StepStatus::kBadRule);
  }
}

TEST_CASE("ld's PLT CFA expression depends on the offset of rip in the entry") {
  // DW_CFA_def_cfa_expression: breg7(rsp) 8; breg16(rip) 0; lit15; and; lit11; ge; lit3; shl;
  // plus — past offset 11 of a 16-byte lazy PLT entry, a push has moved rsp by 8.
  FakeStack stack(64);
  stack.put(kStackBase, 0x401111);
  stack.put(kStackBase + 8, 0x402222);
  FrameRule rule;
  rule.cfa_kind = FrameRule::CfaKind::kExpression;
  rule.cfa_expr =
      add_ops(rule, {breg(7, 8), breg(16, 0), lit(15), op(CfiOpcode::kAnd), lit(11),
                     op(CfiOpcode::kGe), lit(3), op(CfiOpcode::kShl), op(CfiOpcode::kPlus)});
  rule.rule(DwarfReg::kRip) = {Kind::kOffset, 0, -8, {}};
  FrameRegisters caller;
  REQUIRE(apply_frame_rule(rule, regs_at(0x401024, kStackBase), stack.memory(), caller) ==
          StepStatus::kOk);
  CHECK(caller.sp() == kStackBase + 8);
  CHECK(caller.pc() == 0x401111);
  REQUIRE(apply_frame_rule(rule, regs_at(0x40102c, kStackBase), stack.memory(), caller) ==
          StepStatus::kOk);
  CHECK(caller.sp() == kStackBase + 16);
  CHECK(caller.pc() == 0x402222);
}

TEST_CASE("a realigned frame's CFA and rbp come from expressions that dereference the stack") {
  // GCC's main() with stack realignment: CFA = *(rbp - 8); rbp saved at address rbp.
  FakeStack stack(256);
  const uint64_t rbp = kStackBase + 0x40;
  const uint64_t cfa = kStackBase + 0x80;
  stack.put(rbp - 8, cfa);
  stack.put(rbp, 0xabab);
  stack.put(cfa - 8, 0x40cafe);
  FrameRule rule;
  rule.cfa_kind = FrameRule::CfaKind::kExpression;
  rule.cfa_expr = add_ops(rule, {breg(6, -8), op(CfiOpcode::kDeref)});
  rule.rule(DwarfReg::kRip) = {Kind::kOffset, 0, -8, {}};
  RegisterRule rbp_rule{Kind::kExpression, 0, 0, {}};
  rbp_rule.expr = add_ops(rule, {op(CfiOpcode::kCallFrameCfa), breg(6, 0)});
  rule.rule(DwarfReg::kRbp) = rbp_rule;
  FrameRegisters callee = regs_at(0x401000, kStackBase);
  callee.set(DwarfReg::kRbp, rbp);
  FrameRegisters caller;
  REQUIRE(apply_frame_rule(rule, callee, stack.memory(), caller) == StepStatus::kOk);
  CHECK(caller.sp() == cfa);
  CHECK(caller.pc() == 0x40cafe);
  CHECK(caller.get(DwarfReg::kRbp) == 0xabab);
}

TEST_CASE("expressions reject stack underflow and unknown registers") {
  FakeStack stack(64);
  FrameRule rule;
  uint64_t result = 0;
  const auto underflow = add_ops(rule, {lit(1), op(CfiOpcode::kPlus)});
  CHECK(evaluate_cfi_expression(rule, underflow, regs_at(1, kStackBase), stack.memory(), nullptr,
                                result) == StepStatus::kBadRule);
  const auto unknown_reg = add_ops(rule, {breg(3, 0)});
  CHECK(evaluate_cfi_expression(rule, unknown_reg, regs_at(1, kStackBase), stack.memory(), nullptr,
                                result) == StepStatus::kBadRule);
  const auto cfa_without_cfa = add_ops(rule, {op(CfiOpcode::kCallFrameCfa)});
  CHECK(evaluate_cfi_expression(rule, cfa_without_cfa, regs_at(1, kStackBase), stack.memory(),
                                nullptr, result) == StepStatus::kBadRule);
  const auto arithmetic = add_ops(rule, {op(CfiOpcode::kConstu, 40), lit(2), op(CfiOpcode::kMinus),
                                         op(CfiOpcode::kDup), op(CfiOpcode::kPlus)});
  REQUIRE(evaluate_cfi_expression(rule, arithmetic, regs_at(1, kStackBase), stack.memory(), nullptr,
                                  result) == StepStatus::kOk);
  CHECK(result == 76);
}

TEST_CASE("a sigreturn frame restores every register from the saved ucontext") {
  // rt_sigframe after the handler returned: rsp points at struct ucontext; uc_mcontext.gregs
  // starts 40 bytes in, in the order r8..r15, rdi, rsi, rbp, rbx, rdx, rax, rcx, rsp, rip.
  FakeStack stack(1024);
  const uint64_t gregs = kStackBase + 40;
  for (uint64_t i = 0; i < 17; ++i) stack.put(gregs + i * 8, 0x1000 + i);
  FrameRegisters interrupted;
  REQUIRE(restore_sigreturn_frame(regs_at(0x7f0000001000, kStackBase), stack.memory(),
                                  interrupted) == StepStatus::kOk);
  CHECK(interrupted.get(DwarfReg::kR8) == 0x1000);
  CHECK(interrupted.get(DwarfReg::kR15) == 0x1007);
  CHECK(interrupted.get(DwarfReg::kRdi) == 0x1008);
  CHECK(interrupted.get(DwarfReg::kRbp) == 0x100a);
  CHECK(interrupted.get(DwarfReg::kRbx) == 0x100b);
  CHECK(interrupted.get(DwarfReg::kRax) == 0x100d);
  CHECK(interrupted.sp() == 0x100f);
  CHECK(interrupted.pc() == 0x1010);
  FakeStack short_stack(64);
  CHECK(restore_sigreturn_frame(regs_at(1, kStackBase), short_stack.memory(), interrupted) ==
        StepStatus::kStackTruncated);
}

TEST_CASE("the sigreturn trampoline is recognised by its exact bytes") {
  CHECK(is_sigreturn_code(kSigreturnCode));
  auto other = kSigreturnCode;
  other[3] = 0x0e;  // mov $14,%rax: rt_sigprocmask, not rt_sigreturn
  CHECK_FALSE(is_sigreturn_code(other));
}

TEST_CASE("the frame-pointer unwinder follows the rbp chain to its zero end") {
  FakeStack stack(256);
  const uint64_t fp1 = kStackBase + 0x20;
  const uint64_t fp2 = kStackBase + 0x60;
  stack.put(fp1, fp2);
  stack.put(fp1 + 8, 0x401111);
  stack.put(fp2, 0);
  stack.put(fp2 + 8, 0x402222);
  UserRegs regs;
  regs.regs[static_cast<size_t>(PerfReg::kIp)] = 0x403333;
  regs.regs[static_cast<size_t>(PerfReg::kSp)] = kStackBase;
  regs.regs[static_cast<size_t>(PerfReg::kBp)] = fp1;
  regs.valid = arch::x86_64::kUnwindRegsMask;
  struct NoModules : AddressSpace {
    const MappedFile* find(uint64_t) const override { return nullptr; }
  } space;
  FramePointerUnwinder unwinder;
  UnwindResult result;
  unwinder.unwind(regs, stack.memory(), space, result);
  CHECK(result.stop == UnwindStop::kComplete);
  REQUIRE(result.frames.size() == 3);
  CHECK(result.frames[0] == FrameAddress::ip(0x403333));
  CHECK(result.frames[1] == FrameAddress::return_address(0x401111));
  CHECK(result.frames[2] == FrameAddress::return_address(0x402222));

  SUBCASE("a chain that leaves the copy is truncated") {
    stack.put(fp2, kStackBase + 0x1000);
    unwinder.unwind(regs, stack.memory(), space, result);
    CHECK(result.stop == UnwindStop::kStackTruncated);
    CHECK(result.frames.size() == 3);
  }
  SUBCASE("an rbp below sp is not a frame pointer") {
    stack.put(fp2, kStackBase - 0x100);
    unwinder.unwind(regs, stack.memory(), space, result);
    CHECK(result.stop == UnwindStop::kNoProgress);
    CHECK(result.frames.size() == 3);
  }
  SUBCASE("without registers nothing is unwound") {
    regs.valid = 0;
    unwinder.unwind(regs, stack.memory(), space, result);
    CHECK(result.stop == UnwindStop::kNoRegisters);
    CHECK(result.frames.empty());
  }
}

TEST_CASE("perf's packed register array is spread by the sample_regs_user mask") {
  // Bits 0 (ax), 7 (sp), 8 (ip) and 16 (r8): four values in bit order.
  const uint64_t mask = (1u << 0) | (1u << 7) | (1u << 8) | (1u << 16);
  const std::vector<uint64_t> packed = {10, 70, 80, 160};
  const UserRegs regs = UserRegs::from_perf(mask, packed);
  CHECK(regs.get(PerfReg::kAx) == 10);
  CHECK(regs.sp() == 70);
  CHECK(regs.ip() == 80);
  CHECK(regs.get(PerfReg::kR8) == 160);
  CHECK(regs.has(PerfReg::kR8));
  CHECK_FALSE(regs.has(PerfReg::kBx));
  const UserRegs short_regs = UserRegs::from_perf(mask, std::vector<uint64_t>{10, 70});
  CHECK_FALSE(short_regs.has(PerfReg::kIp));
}

TEST_CASE("stack memory reads only inside the copy") {
  std::vector<uint8_t> bytes(16, 0);
  bytes[8] = 0x2a;
  StackMemory memory(0x1000, bytes);
  uint64_t v = 0;
  CHECK(memory.read_u64(0x1008, v));
  CHECK(v == 0x2a);
  CHECK_FALSE(memory.read_u64(0x1009, v));
  CHECK_FALSE(memory.read_u64(0xff8, v));
  CHECK_FALSE(memory.read_u64(0x1010, v));
}

TEST_CASE("every stop reason has its own name") {
  std::set<std::string> names;
  for (size_t i = 0; i < kUnwindStopCount; ++i) {
    names.insert(unwind_stop_name(static_cast<UnwindStop>(i)));
  }
  CHECK(names.size() == kUnwindStopCount);
  CHECK(names.count("unknown") == 0);
  CHECK(std::string(unwind_stop_name(UnwindStop::kStackTruncated)) == "stack-truncated");
}

}  // namespace sprof::unwind
