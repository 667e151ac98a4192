// Allocation wrappers by symbol name (allocation_wrappers.hpp): the names are the ones the
// suite's programs and this machine's libstdc++, libc and Rust standard library carry in their
// symbol tables, mangled as stored; the converter drops their frames from the top of
// allocation stacks, so that the first frame left is the caller the user wrote.
#include "sprof/convert/allocation_wrappers.hpp"

#include <doctest/doctest.h>

#include <string_view>

using sprof::convert::is_allocation_wrapper;
using sprof::convert::is_deallocation_wrapper;

TEST_CASE("operator new and new[] in every form are allocation wrappers") {
  for (std::string_view name :
       {"_Znwm", "_Znam", "_ZnwmRKSt9nothrow_t", "_ZnamRKSt9nothrow_t", "_ZnwmSt11align_val_t",
        "_ZnamSt11align_val_t", "_ZnwmSt11align_val_tRKSt9nothrow_t",
        "_ZnamSt11align_val_tRKSt9nothrow_t", "_Znwj"}) {
    INFO(name);
    CHECK(is_allocation_wrapper(name));
  }
}

TEST_CASE("the standard allocators' allocate is a wrapper; their other members are not") {
  for (std::string_view name :
       {"_ZNSt15__new_allocatorIiE8allocateEmPKv", "_ZN9__gnu_cxx13new_allocatorIcE8allocateEmPKv",
        "_ZNSt16allocator_traitsISaIiEE8allocateERS0_m", "_ZNSaIiE8allocateEm",
        "_ZNSt12_Vector_baseIiSaIiEE11_M_allocateEm"}) {
    INFO(name);
    CHECK(is_allocation_wrapper(name));
  }
  for (std::string_view name : {"_ZNSt15__new_allocatorIiE10deallocateEPim", "_ZNSaIcED2Ev",
                                "_ZNSt6vectorIiSaIiEE9push_backERKi",
                                "_ZNSt6vectorIiSaIiEE17_M_realloc_insertIJRKiEEEvN9__gnu_cxx17__"
                                "normal_iteratorIPiS1_EEDpOT_"}) {
    INFO(name);
    CHECK_FALSE(is_allocation_wrapper(name));
  }
}

TEST_CASE("libc's strdup family is a wrapper; functions that do work of their own are not") {
  for (std::string_view name : {"strdup", "__strdup", "strndup", "__strndup", "wcsdup"}) {
    INFO(name);
    CHECK(is_allocation_wrapper(name));
  }
  for (std::string_view name : {"malloc", "asprintf", "getline", "realpath", "strlen"}) {
    INFO(name);
    CHECK_FALSE(is_allocation_wrapper(name));
  }
}

TEST_CASE("Rust's allocator shims, plain and under __rustc, are wrappers; deallocation is not") {
  for (std::string_view name :
       {"__rust_alloc", "__rust_alloc_zeroed", "__rust_realloc", "__rdl_alloc", "__rg_alloc",
        "__rg_realloc", "_RNvCsfLfy6EI15iL_7___rustc12___rust_alloc",
        "_RNvCsfLfy6EI15iL_7___rustc19___rust_alloc_zeroed",
        "_RNvCsfLfy6EI15iL_7___rustc14___rust_realloc", "_RNvCsfLfy6EI15iL_7___rustc11___rdl_alloc",
        "_RNvCsfLfy6EI15iL_7___rustc13___rdl_realloc",
        "_RNvCsfLfy6EI15iL_7___rustc18___rdl_alloc_zeroed"}) {
    INFO(name);
    CHECK(is_allocation_wrapper(name));
  }
  for (std::string_view name : {"__rust_dealloc", "_RNvCsfLfy6EI15iL_7___rustc14___rust_dealloc",
                                "_RNvCsfLfy6EI15iL_7___rustc10rust_panic"}) {
    INFO(name);
    CHECK_FALSE(is_allocation_wrapper(name));
  }
}

TEST_CASE("alloc::alloc, alloc::raw_vec and std's allocator, v0 and legacy, are wrappers") {
  for (std::string_view name : {
           // <alloc::raw_vec::RawVecInner>::reserve::do_reserve_and_handle::<Global>
           "_RINvNvMs2_NtCslNYArtu3iFV_5alloc7raw_vecINtB8_11RawVecInnerpE7reserve21do_reserve_"
           "and_handleNtNtBa_5alloc6GlobalECsjrHSEGnQ3l9_3std",
           // <alloc::raw_vec::RawVec<alloc::string::String>>::grow_one
           "_RNvMs3_NtCslNYArtu3iFV_5alloc7raw_vecINtB5_6RawVecNtNtB7_6string6StringE8grow_"
           "oneCsjrHSEGnQ3l9_3std",
           "_RNvNtCslNYArtu3iFV_5alloc5alloc15exchange_malloc",
           // <std::alloc::System as core::alloc::global::GlobalAlloc>::alloc
           "_RNvXs_NtCsjrHSEGnQ3l9_3std5allocNtB4_6SystemNtNtNtCsgEmfK2I1SDS_4core5alloc6global11"
           "GlobalAlloc5alloc",
           "_RNvNtNtNtCsjrHSEGnQ3l9_3std3sys5alloc4unix14aligned_malloc",
           "_ZN5alloc7raw_vec19RawVec$LT$T$C$A$GT$8grow_one17h0123456789abcdefE",
           "_ZN5alloc5alloc15exchange_malloc17h0123456789abcdefE",
           "_ZN63_$LT$alloc..alloc..Global$u20$as$u20$core..alloc..Allocator$GT$8allocate17h01234"
           "56789abcdefE",
       }) {
    INFO(name);
    CHECK(is_allocation_wrapper(name));
  }
}

TEST_CASE("the user's Rust functions and other alloc modules are not wrappers") {
  for (std::string_view name : {
           "_ZN7tc_rust11fill_values17h0123456789abcdefE",
           "_RNvCs4X4t9plMPHF_7tc_rust11fill_values",
           "_ZN5alloc3vec12Vec$LT$T$GT$4push17h0123456789abcdefE",
           "_ZN4core3ptr86drop_in_place$LT$std..thread..join_handle..JoinHandle$LT$alloc..string.."
           "String$GT$$GT$17h779a166f1bb8feccE",
           // A truncated name: the reader stops, nothing matches.
           "_RNvNtCslNYArtu3iFV_5alloc",
           "_ZN5alloc",
           "_R",
       }) {
    INFO(name);
    CHECK_FALSE(is_allocation_wrapper(name));
  }
}

TEST_CASE(
    "operator delete, deallocate and Rust's dealloc shims lead a free's stack, not malloc's") {
  for (std::string_view name : {"_ZdlPv", "_ZdlPvm", "_ZdaPv", "_ZdlPvSt11align_val_t",
                                "_ZNSt15__new_allocatorIiE10deallocateEPim",
                                "_ZNSt12_Vector_baseIiSaIiEE13_M_deallocateEPim", "__rust_dealloc",
                                "_RNvCsfLfy6EI15iL_7___rustc14___rust_dealloc", "__rdl_dealloc"}) {
    INFO(name);
    CHECK(is_deallocation_wrapper(name));
    CHECK_FALSE(is_allocation_wrapper(name));
  }
  for (std::string_view name : {"_Znwm", "malloc", "free", "_ZNSaIcED2Ev", "__rust_alloc",
                                "_ZNSt6vectorIiSaIiEED2Ev", "strdup"}) {
    INFO(name);
    CHECK_FALSE(is_deallocation_wrapper(name));
  }
}
