// sprof/arch/x86_64.hpp
//
// What sprof knows about x86-64 registers and frames, in one place: perf's register numbers and
// the registers sprof asks perf to sample, the DWARF register numbers call frame information
// uses and how the two numberings map, the registers an unwinder carries from frame to frame,
// the frame-pointer frame, and the signal frame the kernel builds for a handler. The unwinder
// (sprof::convert), the CFI reader (sprof::elf) and the event setup (sprof::recorder) take their
// numbers from here; another architecture gets its own header beside this one.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace sprof::arch::x86_64 {

// Register numbers of <asm/perf_regs.h> (enum perf_event_x86_regs): the bit of each register in
// attr.sample_regs_user, and the order of the values PERF_SAMPLE_REGS_USER delivers.
enum class PerfReg : uint8_t {
  kAx = 0,
  kBx,
  kCx,
  kDx,
  kSi,
  kDi,
  kBp,
  kSp,
  kIp,
  kFlags,
  kCs,
  kSs,
  kDs,
  kEs,
  kFs,
  kGs,
  kR8 = 16,
  kR9,
  kR10,
  kR11,
  kR12,
  kR13,
  kR14,
  kR15,
  kCount
};
// attr.sample_regs_user for DWARF unwinding: every general-purpose register and IP (segment
// registers and flags are never needed for CFI).
inline constexpr uint64_t kUnwindRegsMask = 0xFF01FFULL;

// DWARF register numbers of the System V psABI (figure 3.36). Column 16 is the return address.
enum class DwarfReg : uint8_t {
  kRax = 0,
  kRdx = 1,
  kRcx = 2,
  kRbx = 3,
  kRsi = 4,
  kRdi = 5,
  kRbp = 6,
  kRsp = 7,
  kR8 = 8,
  kR9,
  kR10,
  kR11,
  kR12,
  kR13,
  kR14,
  kR15 = 15,
  kRip = 16,
};
inline constexpr size_t kDwarfRegCount = 17;

// The sampled registers an unwinder starts from, perf number to DWARF number.
struct PerfToDwarf {
  PerfReg perf;
  DwarfReg dwarf;
};
inline constexpr PerfToDwarf kPerfToDwarf[] = {
    {PerfReg::kAx, DwarfReg::kRax},  {PerfReg::kBx, DwarfReg::kRbx},
    {PerfReg::kCx, DwarfReg::kRcx},  {PerfReg::kDx, DwarfReg::kRdx},
    {PerfReg::kSi, DwarfReg::kRsi},  {PerfReg::kDi, DwarfReg::kRdi},
    {PerfReg::kBp, DwarfReg::kRbp},  {PerfReg::kSp, DwarfReg::kRsp},
    {PerfReg::kIp, DwarfReg::kRip},  {PerfReg::kR8, DwarfReg::kR8},
    {PerfReg::kR9, DwarfReg::kR9},   {PerfReg::kR10, DwarfReg::kR10},
    {PerfReg::kR11, DwarfReg::kR11}, {PerfReg::kR12, DwarfReg::kR12},
    {PerfReg::kR13, DwarfReg::kR13}, {PerfReg::kR14, DwarfReg::kR14},
    {PerfReg::kR15, DwarfReg::kR15},
};

// What an unwinder recovers for each caller: the return address, the stack pointer and the
// callee-saved registers of the psABI (rbx, rbp, r12-r15). The others are call-clobbered.
inline constexpr std::array<DwarfReg, 8> kFrameRegs = {
    DwarfReg::kRip, DwarfReg::kRsp, DwarfReg::kRbp, DwarfReg::kRbx,
    DwarfReg::kR12, DwarfReg::kR13, DwarfReg::kR14, DwarfReg::kR15};

// A frame-pointer frame (`push %rbp; mov %rsp,%rbp`): [rbp] is the caller's rbp, the return
// address follows it, and the caller's rsp is just above both.
inline constexpr uint64_t kFramePointerReturnAddressOffset = 8;
inline constexpr uint64_t kFramePointerCallerSpOffset = 16;

// A signal handler "returns" into glibc's sa_restorer `__restore_rt`:
// `48 c7 c0 0f 00 00 00` mov $0xf,%rax (__NR_rt_sigreturn) then `0f 05` syscall.
inline constexpr std::array<uint8_t, 9> kSigreturnCode = {0x48, 0xc7, 0xc0, 0x0f, 0x00,
                                                          0x00, 0x00, 0x0f, 0x05};
// Offset of the `syscall` within the trampoline: a sample can land on either instruction.
inline constexpr uint64_t kSigreturnSyscallOffset = 7;
// In the trampoline rsp points at the `struct ucontext` of the kernel's `rt_sigframe`
// (arch/x86/include/uapi/asm/ucontext.h): uc_flags (8), uc_link (8), uc_stack (stack_t: ss_sp 8,
// ss_flags 4 + 4 padding, ss_size 8), then uc_mcontext, whose gregs come first.
inline constexpr uint64_t kUcontextGregsOffset = 40;
// Index of each register in uc_mcontext.gregs (struct sigcontext_64 order; glibc's REG_R8 ..
// REG_RIP).
struct GregSlot {
  DwarfReg reg;
  uint64_t index;
};
inline constexpr GregSlot kUcontextGregs[] = {
    {DwarfReg::kR8, 0},   {DwarfReg::kR9, 1},   {DwarfReg::kR10, 2},  {DwarfReg::kR11, 3},
    {DwarfReg::kR12, 4},  {DwarfReg::kR13, 5},  {DwarfReg::kR14, 6},  {DwarfReg::kR15, 7},
    {DwarfReg::kRdi, 8},  {DwarfReg::kRsi, 9},  {DwarfReg::kRbp, 10}, {DwarfReg::kRbx, 11},
    {DwarfReg::kRdx, 12}, {DwarfReg::kRax, 13}, {DwarfReg::kRcx, 14}, {DwarfReg::kRsp, 15},
    {DwarfReg::kRip, 16},
};

}  // namespace sprof::arch::x86_64
