#include "sprof/symbolicator/demangle.hpp"

#include <cxxabi.h>

#include <cstdlib>
#include <memory>

namespace sprof::symbolicator {

std::optional<std::string> demangle_cxx(std::string_view name) {
  if (!name.starts_with("_Z")) return std::nullopt;
  const std::string terminated(name);
  int status = 0;
  std::unique_ptr<char, decltype(&std::free)> result(
      abi::__cxa_demangle(terminated.c_str(), nullptr, nullptr, &status), &std::free);
  if (status != 0 || result == nullptr) return std::nullopt;
  return std::string(result.get());
}

std::string demangle(std::string_view name) {
  if (name.starts_with("_R")) {
    if (auto v0 = demangle_rust_v0(name)) return *v0;
  }
  if (name.starts_with("_ZN")) {
    // Legacy Rust names are valid Itanium names too; only the hash marks them as Rust.
    if (auto legacy = demangle_rust_legacy(name)) return *legacy;
  }
  if (auto cxx = demangle_cxx(name)) return *cxx;
  return std::string(name);
}

}  // namespace sprof::symbolicator
