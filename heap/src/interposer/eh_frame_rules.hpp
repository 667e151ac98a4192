// heap/src/interposer/eh_frame_rules.hpp
//
// What a module's `.eh_frame` says about one code address, as far as walking the stack from it
// needs (x86-64): where the caller's frame starts (the CFA, from %rsp or %rbp plus an offset),
// where the return address is, and where %rbp was saved. Read inside the recorded program, from
// its own loaded image, by the in-process stack walk of record-all mode (stack_walk.hpp): the
// binary search table of `.eh_frame_hdr` finds the FDE, and the CIE's and FDE's call frame
// instructions are run up to the address.
//
// Anything else a row may say (a CFA or register given by a DWARF expression, %rbp or the return
// address kept in another register, a signal frame) is `kUnsupported`: the walk then gives up and
// the record carries a stack copy that sprof unwinds with its full unwinder, so what this reader
// leaves out costs speed, never truth. Every read is bounded by `CfiImage`, so bytes that are not
// CFI at all give `kMalformed`, never a read outside the image (fuzz target: heap_eh_frame).
//
// No allocation, no libc beyond memcpy: this runs inside malloc. That is why it is a reader of
// its own rather than elf/'s (cfi_section_index.cpp, and libdw behind CfiModule), which build
// std containers and report through core's Result: the interposer links neither.
#pragma once

#include <cstdint>

namespace sprof::heap::interposer {

// DWARF register numbers of x86-64 (System V psABI, figure 3.36).
inline constexpr uint8_t kDwarfRbp = 6;
inline constexpr uint8_t kDwarfRsp = 7;
inline constexpr uint8_t kDwarfReturnAddress = 16;

enum class SavedAt : uint8_t {
  kSameValue = 0,  // the register still holds the caller's value
  kCfaOffset = 1,  // saved in memory at CFA + offset
  kUndefined = 2,  // unknown in the caller; for the return address: this is the outermost frame
};

// How to step from a frame at one pc to its caller.
struct FrameRule {
  uint8_t cfa_register;  // kDwarfRsp or kDwarfRbp
  SavedAt bp;
  SavedAt return_address;  // kCfaOffset or kUndefined
  uint8_t unused;
  int32_t cfa_offset;
  int32_t bp_offset;              // when bp == kCfaOffset
  int32_t return_address_offset;  // when return_address == kCfaOffset
};
static_assert(sizeof(FrameRule) == 16);

enum class RuleStatus : uint8_t {
  kFound = 0,
  kNoFde = 1,        // no FDE covers the address
  kUnsupported = 2,  // covered, but by a rule this reader does not evaluate
  kMalformed = 3,    // bytes that are not well-formed CFI, or that point outside the image
};

// A module's loaded bytes, which hold its `.eh_frame_hdr` and `.eh_frame`: `size` bytes at
// `data`, whose first byte is at run-time address `address` (in the recording process they are
// the same; a test or the fuzz target places a byte buffer at any address).
struct CfiImage {
  const uint8_t* data;
  uint64_t size;
  uint64_t address;
};

// The rule at `pc` (an exact code address: for a return address, pass it minus one, the call
// instruction) from the `.eh_frame_hdr` at run-time address `eh_frame_hdr`, inside `image`.
RuleStatus find_frame_rule(const CfiImage& image, uint64_t eh_frame_hdr, uint64_t pc,
                           FrameRule& rule);

}  // namespace sprof::heap::interposer
