#include "sprof/symbolicator/demangle.hpp"

#include <doctest/doctest.h>

#include <string>
#include <vector>

namespace sprof::symbolicator {
namespace {

TEST_CASE("C++ names demangle through the C++ runtime") {
  CHECK(demangle("_ZN12sprof_target19named_leaf_functionEi") ==
        "sprof_target::named_leaf_function(int)");
  CHECK(demangle("_ZNK12sprof_shared6Widget7computeEi") ==
        "sprof_shared::Widget::compute(int) const");
  CHECK(demangle("_ZNSt6vectorIiSaIiEE9push_backERKi") ==
        "std::vector<int, std::allocator<int> >::push_back(int const&)");
  CHECK(demangle("_Z3foov.cold") == "foo() [clone .cold]");
}

TEST_CASE("names that are not mangled are returned unchanged") {
  CHECK(demangle("main") == "main");
  CHECK(demangle("__libc_start_main") == "__libc_start_main");
  CHECK(demangle("_Zinvalid") == "_Zinvalid");
  CHECK(demangle("") == "");
}

TEST_CASE("Rust legacy names drop the hash and decode $ escapes") {
  CHECK(demangle("_ZN4core3ptr13drop_in_place17h0123456789abcdefE") == "core::ptr::drop_in_place");
  CHECK(demangle("_ZN66_$LT$alloc..vec..Vec$LT$T$GT$$u20$as$u20$core..ops..drop..Drop$GT$"
                 "4drop17h8f12a4b5c6d7e8f9E") ==
        "<alloc::vec::Vec<T> as core::ops::drop::Drop>::drop");
  CHECK(demangle("_ZN3std2rt10lang_start28_$u7b$$u7b$closure$u7d$$u7d$17h1111111111111111E") ==
        "std::rt::lang_start::{{closure}}");
  CHECK(demangle("_ZN4test43RefCell$LT$$RF$mut$u20$$BP$const$u20$u8$GT$3get17habcdef0123456789E") ==
        "test::RefCell<&mut *const u8>::get");
  CHECK(demangle("_ZN3foo3bar17h0123456789abcdefE.llvm.1234") == "foo::bar");
  SUBCASE("without the hash component it is plain C++") {
    CHECK(demangle_rust_legacy("_ZN3foo3barE") == std::nullopt);
    CHECK(demangle("_ZN3foo3barE") == "foo::bar");
  }
  SUBCASE("malformed escapes are not legacy Rust") {
    CHECK(demangle_rust_legacy("_ZN3$Q$17h0123456789abcdefE") == std::nullopt);
  }
}

TEST_CASE("Rust v0 names: paths, closures and crate roots") {
  CHECK(demangle("_RNvC6_123foo3bar") == "123foo::bar");
  CHECK(demangle("_RNvNtCs1234_7mycrate3foo3bar") == "mycrate::foo::bar");
  CHECK(demangle("_RNCNCNgCs6DXkGYLi8lr_2cc5spawn00B5_") == "cc::spawn::{closure#0}::{closure#0}");
  CHECK(demangle("_RC3foo.llvm.9D1C9369") == "foo");
  CHECK(demangle("_RNvC9backtrace3foo.llvm.A5310EB9") == "backtrace::foo");
  CHECK(demangle("_RNvNtNtNtNtCs92dm3009vxr_4rand4rngs7adapter9reseeding4fork23FORK_HANDLER_"
                 "REGISTERED.0.0") ==
        "rand::rngs::adapter::reseeding::fork::FORK_HANDLER_REGISTERED.0.0");
}

TEST_CASE("Rust v0 names: impls, generics and backrefs") {
  CHECK(demangle(
            "_RNCINkXs25_NgCsbmNqQUJIY6D_4core5sliceINyB9_4IterhENuNgNoBb_4iter8iterator8Iterator"
            "9rpositionNCNgNpB9_6memchr7memrchrs_0E0Bb_") ==
        "<core::slice::Iter<u8> as core::iter::iterator::Iterator>::rposition::"
        "<core::slice::memchr::memrchr::{closure#1}>::{closure#0}");
  CHECK(demangle("_RINbNbCskIICzLVDPPb_5alloc5alloc8box_freeDINbNiB4_5boxed5FnBoxuEp6OutputuEL_"
                 "ECs1iopQbuBiw2_3std") ==
        "alloc::alloc::box_free::<dyn alloc::boxed::FnBox<(), Output = ()>>");
  CHECK(demangle("_RMC0TRpOhE") == "<(&_, *mut u8)>");
  CHECK(demangle("_RMC0FG_KCRL0_hEu") == "<for<'a> extern \"C\" fn(&'a u8)>");
  CHECK(demangle("_RMC0ASmj3_") == "<[[u32]; 3]>");
}

TEST_CASE("Rust v0 names: const generics") {
  CHECK(demangle("_RMCs4fqI2P2rA04_13const_genericINtB0_8UnsignedKhb_E") ==
        "<const_generic::Unsigned<11>>");
  CHECK(demangle("_RMCs4fqI2P2rA04_13const_genericINtB0_6SignedKs98_E") ==
        "<const_generic::Signed<152>>");
  CHECK(demangle("_RMCs4fqI2P2rA04_13const_genericINtB0_6SignedKanb_E") ==
        "<const_generic::Signed<-11>>");
  CHECK(demangle("_RMCs4fqI2P2rA04_13const_genericINtB0_4BoolKb1_E") ==
        "<const_generic::Bool<true>>");
  CHECK(demangle("_RMCs4fqI2P2rA04_13const_genericINtB0_4CharKc76_E") ==
        "<const_generic::Char<'v'>>");
  CHECK(demangle("_RNvNvMCs4fqI2P2rA04_13const_genericINtB4_3FooKpE3foo3FOO") ==
        "<const_generic::Foo<_>>::foo::FOO");
}

// Symbols rustc 1.97-nightly emitted for `#![feature(adt_const_params, unsized_const_params)]`
// generics; printed as rustc-demangle (rustfilt) prints them: braces around a constant that is
// not a literal, `"..."` for a `&str`.
TEST_CASE("Rust v0 names: structured constants (str, references, arrays, tuples, ADTs)") {
  CHECK(demangle("_RINvCsdl2Un5Wj4aO_2sc1sKRe616263_EB2_") == "sc::s::<\"abc\">");
  CHECK(demangle("_RINvCsdl2Un5Wj4aO_2sc1sKRe71756f22746520c3a420f09fa6800a_EB2_") ==
        "sc::s::<\"quo\\\"te \u00e4 \U0001f980\\n\">");
  CHECK(demangle("_RINvCsdl2Un5Wj4aO_2sc3arrKAh1_h2_h3_EEB2_") == "sc::arr::<{[1, 2, 3]}>");
  CHECK(demangle("_RINvCsdl2Un5Wj4aO_2sc3tupKTh7_b1_EEB2_") == "sc::tup::<{(7, true)}>");
  CHECK(demangle("_RINvCsdl2Un5Wj4aO_2sc4tup1KTh9_EEB2_") == "sc::tup1::<{(9,)}>");
  CHECK(demangle("_RINvCsdl2Un5Wj4aO_2sc4srefKRAh4_h5_EEB2_") == "sc::sref::<{&[4, 5]}>");
  CHECK(demangle("_RINvCsdl2Un5Wj4aO_2sc2ptKVNtB2_5PointS1xm3_1yan2_EEB2_") ==
        "sc::pt::<{sc::Point { x: 3, y: -2 }}>");
  CHECK(demangle("_RINvCsdl2Un5Wj4aO_2sc4pairKVNtB2_4PairTh1_b0_EEB2_") ==
        "sc::pair::<{sc::Pair(1, false)}>");
  CHECK(demangle("_RINvCsdl2Un5Wj4aO_2sc1eKVNtNtB2_1E4UnitUEB2_") == "sc::e::<{sc::E::Unit}>");
  CHECK(demangle("_RINvCsdl2Un5Wj4aO_2sc1eKVNtNtB2_1E3TupTt5_EEB2_") == "sc::e::<{sc::E::Tup(5)}>");
  CHECK(demangle("_RINvCsdl2Un5Wj4aO_2sc1eKVNtNtB2_1E5NamedS1ac7a_EEB2_") ==
        "sc::e::<{sc::E::Named { a: 'z' }}>");
  SUBCASE("a str constant that is not UTF-8 leaves the name mangled") {
    CHECK(demangle_rust_v0("_RINvC2sc1sKRefe_EB2_") == std::nullopt);
  }
}

TEST_CASE("Rust v0 punycode identifiers decode to UTF-8") {
  CHECK(demangle("_RNqCs4fqI2P2rA04_11utf8_identsu30____7hkackfecea1cbdathfdh9hlq6y") ==
        "utf8_idents::საჭმელად_გემრიელი_სადილი");
}

TEST_CASE("malformed Rust v0 names are returned unchanged, never crash") {
  for (const char* bad : {"_R", "_RN", "_RNvC", "_RB_", "_RNvC3foo", "_RIC3fooE_", "_RC3foo!",
                          "_RNvB0_3foo", "_RTTTTTTpB8_EB7_EB6_EB5_EB4_EB3_E"}) {
    CAPTURE(bad);
    CHECK(demangle(bad) == bad);
  }
}

TEST_CASE("Rust v0 backrefs that expand exponentially are bounded") {
  // Each "B<n>_E" doubles the tuple before it: 2^6 leaves print; 2^40 would not finish.
  CHECK(demangle("_RMC0TTTTTTpB8_EB7_EB6_EB5_EB4_EB3_E").size() > 300);
  std::string bomb = "_RMC0";
  for (int i = 0; i < 40; ++i) bomb += "T";
  bomb += "p";
  for (int i = 0; i < 40; ++i) {
    // Backref i points at the i-th tuple from the inside (the first at the "p", byte 43 after
    // "_R"), so every tuple repeats the one inside it twice.
    const char* digits = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
    bomb += std::string("B") + digits[42 - i] + "_E";
  }
  CHECK(demangle(bomb) == bomb);
}

TEST_CASE("every truncation and single-byte change of valid names demangles without crashing") {
  // Not a fuzzer, but it walks every prefix and a substitution at every position, which reaches
  // the end-of-input and bad-tag paths of each parser.
  const std::vector<std::string> valid = {
      "_RNCINkXs25_NgCsbmNqQUJIY6D_4core5sliceINyB9_4IterhENuNgNoBb_4iter8iterator8Iterator"
      "9rpositionNCNgNpB9_6memchr7memrchrs_0E0Bb_",
      "_RINbNbCskIICzLVDPPb_5alloc5alloc8box_freeDINbNiB4_5boxed5FnBoxuEp6OutputuEL_"
      "ECs1iopQbuBiw2_3std",
      "_RNqCs4fqI2P2rA04_11utf8_identsu30____7hkackfecea1cbdathfdh9hlq6y",
      "_RMC0FG_KCRL0_hEu",
      "_ZN66_$LT$alloc..vec..Vec$LT$T$GT$$u20$as$u20$core..ops..drop..Drop$GT$"
      "4drop17h8f12a4b5c6d7e8f9E",
  };
  size_t demangled = 0;
  for (const std::string& name : valid) {
    for (size_t cut = 0; cut <= name.size(); ++cut) {
      demangled += demangle(name.substr(0, cut)).size();
    }
    for (size_t i = 2; i < name.size(); ++i) {
      for (char c : {'B', '_', '0', 'z', 'E', 'u', 'I'}) {
        std::string changed = name;
        changed[i] = c;
        demangled += demangle(changed).size();
      }
    }
  }
  CHECK(demangled > 0);
}

}  // namespace
}  // namespace sprof::symbolicator
