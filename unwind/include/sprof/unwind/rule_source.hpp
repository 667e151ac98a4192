// sprof/unwind/rule_source.hpp
//
// What the CFI unwinder asks about the code at one PC of a mapped file. The production
// implementation is `CfiRuleCache` (CFI read with sprof::elf, cached per PC); tests supply
// hand-written rules over fake memory.
#pragma once

#include <cstdint>

#include "sprof/elf/cfi_rule.hpp"
#include "sprof/unwind/unwinder.hpp"

namespace sprof::unwind {

struct CodeLookup {
  enum class Kind : uint8_t {
    kNoCfi,      // no rule covers the PC (or the file is unreadable)
    kRule,       // `rule` says how to leave the frame
    kSigreturn,  // the PC is in the rt_sigreturn trampoline (sigreturn_frame.hpp)
  };
  Kind kind = Kind::kNoCfi;
  // Valid until the next lookup on the same source.
  const elf::FrameRule* rule = nullptr;
};

class RuleSource {
 public:
  virtual ~RuleSource() = default;
  // `svma` is the frame's PC in `module`'s address space. `is_return_address` says the PC came
  // from a call: the rule is then looked up at svma - 1, inside the call instruction, because a
  // call may be the last instruction of a function (noreturn) and svma may start another.
  virtual CodeLookup lookup(const MappedFile& module, Svma svma, bool is_return_address) = 0;
};

}  // namespace sprof::unwind
