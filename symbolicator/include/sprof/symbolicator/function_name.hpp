// sprof/symbolicator/function_name.hpp
//
// GCC emits parts and specialised copies of a function under names with a clone suffix: the
// cold part of `f` is "f.cold" ("f() [clone .cold]" demangled), a copy with scalarised arguments
// "f.isra.0". They are the same source function, so the symbolicator names them without the
// suffix (a function's hot and cold parts become one node), and tools that compare symbolizers
// drop it too.
//   without_clone_suffix("ns::f(int) [clone .isra.0] [clone .cold]") == "ns::f(int)"
//   without_clone_suffix("main.cold")                                 == "main"
// Pure; thread-safe.
#pragma once

#include <string_view>

namespace sprof::symbolicator {

// Drops demangled " [clone .x]" suffixes and the raw ".cold", ".part.N", ".isra.N",
// ".constprop.N", ".lto_priv.N", ".localalias" of names that were not mangled.
std::string_view without_clone_suffix(std::string_view name);

}  // namespace sprof::symbolicator
