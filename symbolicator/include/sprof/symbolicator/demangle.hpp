// sprof/symbolicator/demangle.hpp
//
// Turns linker symbol names into the readable names the Firefox Profiler shows verbatim
// (docs/firefox-profiler-format.md, "symbolication API /symbolicate/v5": the front end does not
// demangle /symbolicate/v5 results).
//   C++ (Itanium, "_Z...")            via the C++ runtime's __cxa_demangle;
//   Rust legacy ("_ZN...17h<hash>E")   path components joined by "::", $..$ escapes decoded, the
//                                      hash dropped (rustc-demangle's alternate form);
//   Rust v0 ("_R...", RFC 2603)        paths, generics, impls, closures, basic types, references,
//                                      arrays, tuples, fn pointers, dyn traits, backrefs, punycode
//                                      identifiers and constants (integers, bool, char, and the
//                                      str/reference/array/tuple/ADT values of adt_const_params),
//                                      as rustc-demangle's alternate form; crate hashes dropped.
// A name that does not demangle is returned unchanged. Pure functions; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace sprof::symbolicator {

std::string demangle(std::string_view name);

std::optional<std::string> demangle_cxx(std::string_view name);
std::optional<std::string> demangle_rust_legacy(std::string_view name);
std::optional<std::string> demangle_rust_v0(std::string_view name);

}  // namespace sprof::symbolicator
