// Fuzz target: the unwinder's evaluation of CFI rows (CFA, register rules, DWARF expressions)
// over sampled registers and a sampled user stack, both controlled by the recorded program.
#include "cfi_rule_input.hpp"
#include "sprof/unwind/cfi_rule_evaluator.hpp"

namespace unwind = sprof::unwind;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  sprof::fuzz::CfiRuleInputHead head;
  std::span<const uint8_t> stack_bytes;
  if (!sprof::fuzz::split_cfi_rule_input({data, size}, head, stack_bytes)) return 0;
  const sprof::elf::FrameRule rule = head.rule();
  unwind::FrameRegisters callee;
  for (unsigned r = 0; r < sprof::elf::kDwarfRegCount; ++r) {
    if ((head.valid_regs >> r) & 1)
      callee.set(static_cast<sprof::elf::DwarfReg>(r), head.values[r]);
  }
  const unwind::StackMemory stack(head.stack_start, stack_bytes);
  unwind::FrameRegisters caller;
  (void)unwind::apply_frame_rule(rule, callee, stack, caller);
  uint64_t value = 0;
  const uint64_t cfa = head.values[0];
  (void)unwind::evaluate_cfi_expression(rule, rule.cfa_expr, callee, stack, &cfa, value);
  return 0;
}
