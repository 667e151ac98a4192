// sprof/convert/allocation_wrappers.hpp
//
// Which functions only allocate on their caller's behalf, by the name their ELF symbol table
// gives them (mangled). An allocation stack (`sprof record --heap`) starts at the interposer's
// malloc; the frames above it that belong to such wrappers say nothing about who allocated, so
// the converter drops them too (allocator_frames.hpp) and the first frame left is the code the
// user wrote. The list, and why each entry is a pure wrapper, is in docs/heap.md ("Stacks"):
//
//   C++     operator new and new[], every form (plain, nothrow, aligned, aligned nothrow: the
//           mangled names _Znw* and _Zna*); the standard allocators' allocate (std::allocator,
//           std::allocator_traits, __gnu_cxx::new_allocator, std::__new_allocator, libc++'s
//           std::__1 ones) and std::_Vector_base::_M_allocate, which out-of-line (-O0) stand
//           between a container and operator new.
//   Rust    the allocator shims __rust_alloc, __rust_alloc_zeroed, __rust_realloc and what they
//           call, __rdl_* (the default allocator) or __rg_* (a #[global_allocator]), plain or
//           mangled under the __rustc crate (rustc >= 1.9x); everything in alloc::alloc
//           (exchange_malloc, Global's Allocator impl) and alloc::raw_vec (a Vec's or String's
//           buffer growth); std::alloc and std::sys's alloc modules (System's GlobalAlloc impl).
//           Legacy (_ZN...17h<hash>E) and v0 (_R...) mangling alike.
//   libc    strdup, strndup, wcsdup and their __ aliases: malloc and a copy.
#pragma once

#include <string_view>

namespace sprof::convert {

bool is_allocation_wrapper(std::string_view symbol_name);

// The same for a free's stack (`--heap-free-stacks`): functions that only free on their caller's
// behalf. C++: operator delete and delete[], every form (_Zdl*, _Zda*); the standard allocators'
// deallocate and std::_Vector_base::_M_deallocate; libc++'s __libcpp_deallocate and
// __libcpp_operator_delete. Rust: __rust_dealloc, __rdl_dealloc, __rg_dealloc, plain or under
// the __rustc crate.
bool is_deallocation_wrapper(std::string_view symbol_name);

}  // namespace sprof::convert
