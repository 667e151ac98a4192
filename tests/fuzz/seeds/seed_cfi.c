/* Code whose call frame information seeds the CFI-module fuzz target. Linked (-nostdlib, static)
 * so .text, .eh_frame_hdr and .eh_frame sit where the target's template ELF puts them
 * (tests/fuzz/cfi_template_elf.hpp). Compiled functions give ordinary rows (CFA = rsp + n, a
 * frame-pointer frame through alloca); the assembly gives the rules compilers rarely emit:
 * expressions, a signal frame, remember/restore state, register and val_offset rules, and an
 * undefined return address. */
void seed_sink(volatile char* p);

__attribute__((noinline)) int seed_leaf(int x) { return x * 7 + 3; }

__attribute__((noinline)) int seed_calls(int x) { return seed_leaf(x) + seed_leaf(x + 1); }

__attribute__((noinline)) void seed_alloca(int n) {
  volatile char* p = __builtin_alloca((unsigned long)n);
  seed_sink(p);
}

void seed_sink(volatile char* p) { p[0] = 1; }

__asm__(
    ".text\n"
    ".globl seed_expressions\n"
    "seed_expressions:\n"
    ".cfi_startproc\n"
    /* DW_CFA_def_cfa_expression: the PLT's rsp + 8 + ((rip & 15) >= 11) << 3 */
    ".cfi_escape 0x0f, 11, 0x77, 0x08, 0x80, 0x00, 0x3f, 0x1a, 0x3b, 0x2a, 0x33, 0x24, 0x22\n"
    "  nop\n"
    /* DW_CFA_expression rbx: *(CFA - 16) via DW_OP_call_frame_cfa, DW_OP_lit16, DW_OP_minus */
    ".cfi_escape 0x10, 0x03, 3, 0x9c, 0x40, 0x1c\n"
    /* DW_CFA_val_expression r12: DW_OP_breg7 (rsp) 0 */
    ".cfi_escape 0x16, 0x0c, 2, 0x77, 0x00\n"
    "  nop\n"
    ".cfi_def_cfa rsp, 16\n"
    ".cfi_remember_state\n"
    ".cfi_offset rbp, -16\n"
    ".cfi_register r13, r14\n"
    ".cfi_escape 0x14, 0x0f, 0x03\n" /* DW_CFA_val_offset r15, 3 * data alignment (-8) */
    ".cfi_same_value rbx\n"
    "  nop\n"
    ".cfi_restore_state\n"
    "  nop\n"
    ".cfi_undefined rip\n"
    "  ret\n"
    ".cfi_endproc\n"
    ".globl seed_signal_frame\n"
    "seed_signal_frame:\n"
    ".cfi_startproc simple\n"
    ".cfi_signal_frame\n"
    /* Everything from the ucontext at rsp, as in the sigreturn trampoline: CFA = *(rsp + 160),
     * rip saved at rsp + 168, rbp at rsp + 120 (DW_CFA_def_cfa_expression, DW_CFA_expression) */
    ".cfi_escape 0x0f, 4, 0x77, 0xa0, 0x01, 0x06\n"
    ".cfi_escape 0x10, 0x10, 3, 0x77, 0xa8, 0x01\n"
    ".cfi_escape 0x10, 0x06, 3, 0x77, 0xf8, 0x00\n"
    "  nop\n"
    "  mov $15, %rax\n"
    "  syscall\n"
    ".cfi_endproc\n");

/* The entry point the linker asks for; never run. */
void _start(void) { seed_alloca(seed_calls(1)); }
