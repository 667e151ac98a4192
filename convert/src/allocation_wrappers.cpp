#include "sprof/convert/allocation_wrappers.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <vector>

namespace sprof::convert {

namespace {

using Path = std::vector<std::string_view>;

// A Rust symbol's leading path, read straight from its mangled name: no demangler here (the
// symbolicator's sits above convert), and the wrappers are recognised by their crate and module
// alone. A reader over the name's bytes; every read fails rather than run past the end.
class Reader {
 public:
  explicit Reader(std::string_view s) : s_(s) {}

  bool at_end() const { return i_ >= s_.size(); }
  char peek() const { return at_end() ? '\0' : s_[i_]; }
  bool eat(char c) {
    if (peek() != c) return false;
    ++i_;
    return true;
  }
  bool decimal(size_t& n) {
    if (!std::isdigit(static_cast<unsigned char>(peek()))) return false;
    n = 0;
    while (std::isdigit(static_cast<unsigned char>(peek()))) {
      n = n * 10 + static_cast<size_t>(s_[i_++] - '0');
      if (n > s_.size()) return false;
    }
    return true;
  }
  bool bytes(size_t n, std::string_view& out) {
    if (n > s_.size() - i_) return false;
    out = s_.substr(i_, n);
    i_ += n;
    return true;
  }
  // v0's `s <base-62-number> _`, optional wherever the grammar allows one.
  bool disambiguator() {
    if (!eat('s')) return true;
    while (std::isalnum(static_cast<unsigned char>(peek()))) ++i_;
    return eat('_');
  }
  // v0's identifier: [disambiguator] ["u"] <decimal> ["_"] <bytes>. The "_" separates the length
  // from bytes that start with a digit or "_" ("7___rustc" is "__rustc").
  bool v0_identifier(std::string_view& out) {
    size_t n = 0;
    if (!disambiguator()) return false;
    eat('u');  // punycode: the bytes are still what the check compares
    if (!decimal(n)) return false;
    eat('_');
    return bytes(n, out);
  }

 private:
  std::string_view s_;
  size_t i_ = 0;
};

// The identifiers of a v0 path from its crate root outwards, as far as nothing but nested
// names (N) wrap it: for an impl (M, X) or generic arguments (I), the path inside them, which
// is where the impl lives. `open` says whether the caller may read the next identifier.
bool v0_path(Reader& r, Path& out, bool& open) {
  if (r.eat('C')) {
    std::string_view crate;
    if (!r.v0_identifier(crate)) return false;
    out.push_back(crate);
    open = true;
    return true;
  }
  if (r.eat('N')) {
    if (r.at_end()) return false;
    r.eat(r.peek());  // the namespace tag (v: value, t: type, C: closure, ...)
    if (!v0_path(r, out, open)) return false;
    if (!open) return true;
    std::string_view name;
    if (!r.v0_identifier(name)) return false;
    out.push_back(name);
    return true;
  }
  if (r.eat('I')) {
    const bool ok = v0_path(r, out, open);
    open = false;  // generic arguments follow: not read
    return ok;
  }
  if (r.eat('M') || r.eat('X')) {
    if (!r.disambiguator()) return false;
    const bool ok = v0_path(r, out, open);
    open = false;  // the impl's self type (and trait) follow: not read
    return ok;
  }
  return false;  // a backreference or trait definition at the root: not a wrapper's shape
}

// Legacy: _ZN <length><bytes>... E, where a trait impl's first component is the whole
// `<alloc::alloc::Global as core::alloc::Allocator>` escaped ("_$LT$alloc..alloc..Global$u20$as
// ..."): its leading path ("alloc", "alloc", "Global") stands for it.
Path legacy_path(std::string_view name) {
  Path out;
  Reader r(name.substr(3));
  size_t n = 0;
  std::string_view part;
  while (r.decimal(n) && r.bytes(n, part)) {
    constexpr std::string_view kImplOpen = "_$LT$";
    if (out.empty() && part.starts_with(kImplOpen)) {
      std::string_view inner = part.substr(kImplOpen.size());
      inner = inner.substr(0, inner.find('$'));
      for (size_t dots; (dots = inner.find("..")) != std::string_view::npos;) {
        out.push_back(inner.substr(0, dots));
        inner.remove_prefix(dots + 2);
      }
      out.push_back(inner);
      continue;
    }
    out.push_back(part);
  }
  return out;
}

Path rust_path(std::string_view name) {
  if (name.starts_with("_ZN")) return legacy_path(name);
  Path out;
  if (!name.starts_with("_R")) return out;
  Reader r(name.substr(2));
  size_t version = 0;
  r.decimal(version);  // an optional encoding version
  bool open = false;
  if (!v0_path(r, out, open)) out.clear();
  return out;
}

bool is_rust_shim(std::string_view name) {
  // __rust_*: the shims the compiler emits into every program; __rdl_*: the default allocator
  // they forward to; __rg_*: a #[global_allocator]'s. Their deallocation entries never allocate.
  static constexpr std::array<std::string_view, 9> kShims = {
      "__rust_alloc", "__rust_alloc_zeroed", "__rust_realloc",  //
      "__rdl_alloc",  "__rdl_alloc_zeroed",  "__rdl_realloc",   //
      "__rg_alloc",   "__rg_alloc_zeroed",   "__rg_realloc"};
  return std::find(kShims.begin(), kShims.end(), name) != kShims.end();
}

bool is_rust_wrapper(std::string_view name) {
  if (is_rust_shim(name)) return true;
  const Path p = rust_path(name);
  if (p.size() < 2) return false;
  if (p[0] == "__rustc") return is_rust_shim(p[1]);
  if (p[0] == "alloc") return p[1] == "alloc" || p[1] == "raw_vec";
  if (p[0] == "std") {
    // std::alloc (System, the default allocator's __rdl_* before they moved under __rustc) and
    // std::sys::...::alloc (System's implementation on each platform: aligned_malloc, ...).
    if (p[1] == "alloc") return true;
    return p[1] == "sys" && std::find(p.begin() + 2, p.end(), "alloc") != p.end();
  }
  return false;
}

bool is_cxx_wrapper(std::string_view name) {
  // operator new (nw) and new[] (na) at global scope, of any signature: (size_t), (size_t,
  // nothrow_t const&), (size_t, align_val_t), (size_t, align_val_t, nothrow_t const&).
  if (name.starts_with("_Znw") || name.starts_with("_Zna")) return true;
  struct Member {
    std::string_view owner;  // the mangled name's start, up to the template arguments
    std::string_view member;
  };
  static constexpr std::array<Member, 9> kMembers = {{
      {"_ZNSaI", "8allocateE"},                         // std::allocator<T>
      {"_ZNSt16allocator_traitsI", "8allocateE"},       // std::allocator_traits<A>
      {"_ZNSt15__new_allocatorI", "8allocateE"},        // GCC >= 12
      {"_ZN9__gnu_cxx13new_allocatorI", "8allocateE"},  // GCC < 12
      {"_ZNSt12_Vector_baseI", "11_M_allocateE"},       // std::vector's buffer
      {"_ZNSt3__19allocatorI", "8allocate"},            // libc++ (an ABI tag may follow)
      {"_ZNSt3__116allocator_traitsI", "8allocate"},    //
      {"_ZNSt3__117__libcpp_allocate", ""},             //
      {"_ZNSt3__121__libcpp_operator_new", ""},         //
  }};
  return std::any_of(kMembers.begin(), kMembers.end(), [&](const Member& m) {
    return name.starts_with(m.owner) &&
           name.find(m.member, m.owner.size()) != std::string_view::npos;
  });
}

bool is_libc_wrapper(std::string_view name) {
  // Only those that do nothing but allocate and copy: asprintf, getline, realpath and the like
  // do work of their own and stay in the stack as what the caller asked for.
  static constexpr std::array<std::string_view, 5> kNames = {"strdup", "__strdup", "strndup",
                                                             "__strndup", "wcsdup"};
  return std::find(kNames.begin(), kNames.end(), name) != kNames.end();
}

bool is_cxx_freeing_wrapper(std::string_view name) {
  // operator delete (dl) and delete[] (da) at global scope, of any signature (sized, aligned).
  if (name.starts_with("_Zdl") || name.starts_with("_Zda")) return true;
  static constexpr std::array<std::string_view, 5> kOwners = {
      "_ZNSt15__new_allocatorI", "_ZN9__gnu_cxx13new_allocatorI", "_ZNSt16allocator_traitsI",
      "_ZNSaI", "_ZNSt3__19allocatorI"};
  const bool deallocate = std::any_of(kOwners.begin(), kOwners.end(), [&](std::string_view owner) {
    return name.starts_with(owner) &&
           name.find("10deallocate", owner.size()) != std::string_view::npos;
  });
  return deallocate ||
         (name.starts_with("_ZNSt12_Vector_baseI") &&
          name.find("13_M_deallocateE") != std::string_view::npos) ||
         name.starts_with("_ZNSt3__119__libcpp_deallocate") ||
         name.starts_with("_ZNSt3__124__libcpp_operator_delete");
}

bool is_rust_freeing_shim(std::string_view name) {
  static constexpr std::array<std::string_view, 3> kShims = {"__rust_dealloc", "__rdl_dealloc",
                                                             "__rg_dealloc"};
  return std::find(kShims.begin(), kShims.end(), name) != kShims.end();
}

bool is_rust_freeing_wrapper(std::string_view name) {
  if (is_rust_freeing_shim(name)) return true;
  const Path p = rust_path(name);
  return p.size() >= 2 && p[0] == "__rustc" && is_rust_freeing_shim(p[1]);
}

}  // namespace

bool is_allocation_wrapper(std::string_view symbol_name) {
  return is_cxx_wrapper(symbol_name) || is_libc_wrapper(symbol_name) ||
         is_rust_wrapper(symbol_name);
}

bool is_deallocation_wrapper(std::string_view symbol_name) {
  return is_cxx_freeing_wrapper(symbol_name) || is_rust_freeing_wrapper(symbol_name);
}

}  // namespace sprof::convert
