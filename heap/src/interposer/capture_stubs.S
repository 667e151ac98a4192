// heap/src/interposer/capture_stubs.S
//
// Register capture for sampled allocations, and for recorded frees with --heap-free-stacks
// (x86-64 System V). An entry point in
// entry_points.cpp that decides to take its slow path tail-calls one of these stubs with its
// own arguments untouched, so at the stub's first instruction the machine state is the state at
// the entry of the public function: %rsp points at the return address into the allocation's
// caller, and %rbx, %rbp, %r12-%r15 still hold the caller's values. The stub stores that state
// as a CapturedRegs (sprof/heap/heap_ring_format.hpp: ip, sp, bp, bx, r12, r13, r14, r15) on its
// own stack and calls the hook with a pointer to it as the fourth argument (%rcx); the hook's
// first three arguments are the entry point's, passed through. (mimalloc's entry points call
// sprof_heap_capture_mi_call instead of tail-calling it, with a description of the call: the
// stub then sees their frame above the caller's, which DWARF unwinding steps through;
// mimalloc_entry_points.cpp says why.)
//
// `ip` is the stub's own first instruction. Its CFI (CFA = %rsp + 8, return address at CFA - 8)
// describes exactly that state, so a DWARF unwinder walks from it to the caller in one step.
// If a compiler does not emit the tail call, the return address is inside the entry point
// instead, and unwinding takes one more step through libsprof-heap.so (which has CFI too).

        .text

.macro SPROF_CAPTURE_STUB name, hook
        .globl  \name
        .hidden \name
        .type   \name, @function
        .p2align 4
\name:
        .cfi_startproc
        // 64 bytes of CapturedRegs + 8 so the call below sees a 16-byte aligned stack
        // (at entry %rsp = 8 mod 16).
        subq    $72, %rsp
        .cfi_adjust_cfa_offset 72
        leaq    \name(%rip), %rax
        movq    %rax, 0(%rsp)         // ip
        leaq    72(%rsp), %rax
        movq    %rax, 8(%rsp)         // sp at entry
        movq    %rbp, 16(%rsp)
        movq    %rbx, 24(%rsp)
        movq    %r12, 32(%rsp)
        movq    %r13, 40(%rsp)
        movq    %r14, 48(%rsp)
        movq    %r15, 56(%rsp)
        movq    %rsp, %rcx
        call    \hook
        addq    $72, %rsp
        .cfi_adjust_cfa_offset -72
        ret
        .cfi_endproc
        .size   \name, .-\name
.endm

SPROF_CAPTURE_STUB sprof_heap_capture_malloc, sprof_heap_malloc_hook
SPROF_CAPTURE_STUB sprof_heap_capture_free, sprof_heap_free_hook
SPROF_CAPTURE_STUB sprof_heap_capture_calloc, sprof_heap_calloc_hook
SPROF_CAPTURE_STUB sprof_heap_capture_realloc, sprof_heap_realloc_hook
SPROF_CAPTURE_STUB sprof_heap_capture_reallocarray, sprof_heap_reallocarray_hook
SPROF_CAPTURE_STUB sprof_heap_capture_posix_memalign, sprof_heap_posix_memalign_hook
SPROF_CAPTURE_STUB sprof_heap_capture_aligned_alloc, sprof_heap_aligned_alloc_hook
SPROF_CAPTURE_STUB sprof_heap_capture_memalign, sprof_heap_memalign_hook
SPROF_CAPTURE_STUB sprof_heap_capture_valloc, sprof_heap_valloc_hook
SPROF_CAPTURE_STUB sprof_heap_capture_pvalloc, sprof_heap_pvalloc_hook
SPROF_CAPTURE_STUB sprof_heap_capture_mi_call, sprof_heap_mi_call_hook

        .section .note.GNU-stack,"",@progbits
