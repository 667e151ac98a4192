#include "disassembler.hpp"

#include <capstone/capstone.h>

namespace sprof::api::detail {

namespace {

// Owns a capstone handle and the one reusable instruction buffer of `cs_disasm_iter`.
class Capstone {
 public:
  ~Capstone() {
    if (insn_ != nullptr) cs_free(insn_, 1);
    if (handle_ != 0) cs_close(&handle_);
  }
  Result<void> open_x86_64() {
    if (cs_open(CS_ARCH_X86, CS_MODE_64, &handle_) != CS_ERR_OK) {
      handle_ = 0;
      return fail(Errc::kInternal, "capstone: cannot open an x86-64 disassembler");
    }
    // Intel is capstone's default x86 syntax; set it anyway, it is what the reply promises.
    cs_option(handle_, CS_OPT_SYNTAX, CS_OPT_SYNTAX_INTEL);
    insn_ = cs_malloc(handle_);
    if (insn_ == nullptr) return fail(Errc::kInternal, "capstone: cs_malloc failed");
    return ok();
  }
  csh handle() const { return handle_; }
  cs_insn* insn() const { return insn_; }

 private:
  csh handle_ = 0;
  cs_insn* insn_ = nullptr;
};

}  // namespace

Result<std::vector<Instruction>> disassemble_x86_64(std::span<const uint8_t> code,
                                                    uint64_t address) {
  Capstone capstone;
  SPROF_TRY_VOID(capstone.open_x86_64());
  std::vector<Instruction> instructions;
  const uint8_t* cursor = code.data();
  size_t remaining = code.size();
  uint64_t pc = address;
  while (remaining > 0) {
    Instruction instruction;
    instruction.offset = pc - address;
    if (cs_disasm_iter(capstone.handle(), &cursor, &remaining, &pc, capstone.insn())) {
      const cs_insn& insn = *capstone.insn();
      instruction.text = insn.mnemonic;
      if (insn.op_str[0] != '\0') {
        instruction.text += ' ';
        instruction.text += insn.op_str;
      }
    } else {
      instruction.text = "(bad)";
      ++cursor;
      --remaining;
      ++pc;
    }
    instructions.push_back(std::move(instruction));
  }
  return instructions;
}

}  // namespace sprof::api::detail
