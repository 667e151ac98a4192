// demangled_name_pool.hpp (private)
//
// The names of DWARF's inline trees, one copy of each distinct name, demangled on first use.
// DemangledNames' one slot per scope would not do here: the same function is inlined into
// thousands of others (std::vector<...>::size into every unit of a C++ program) and every tree
// names it by the same linkage name. Cached per tree, one 200 k-address request over the sprof
// binary kept 55 k demangled strings, ~19 MB, mostly copies of a few thousand names of ~400
// bytes; pooled, each is kept once. The pool also keeps its own copy of the mangled name, so
// that answering a lookup never reads the mapped debug file: a reply of many frames would
// otherwise fault page after page of .debug_str back into the resident set.
// Thread-safe: trees are read and looked up concurrently.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

#include "sprof/symbolicator/demangle.hpp"

namespace sprof::symbolicator::detail {

class PooledName {
 public:
  explicit PooledName(std::string_view spelled) : spelled_(spelled) {}
  // As DWARF spells it: the mangled linkage name, or DW_AT_name.
  const std::string& spelled() const { return spelled_; }
  const std::string& demangled() const {
    std::call_once(demangled_once_, [this] { demangled_ = demangle(spelled_); });
    return demangled_;
  }

 private:
  std::string spelled_;
  mutable std::once_flag demangled_once_;
  mutable std::string demangled_;
};

class DemangledNamePool {
 public:
  // The pool's entry for `spelled`, made on first sight; it lives as long as the pool.
  const PooledName* intern(std::string_view spelled) {
    std::lock_guard lock(mutex_);
    auto it = names_.find(spelled);
    if (it == names_.end()) {
      auto name = std::make_unique<PooledName>(spelled);
      const std::string_view key = name->spelled();  // the entry's own bytes
      it = names_.emplace(key, std::move(name)).first;
    }
    return it->second.get();
  }

 private:
  std::mutex mutex_;
  std::unordered_map<std::string_view, std::unique_ptr<const PooledName>> names_;
};

}  // namespace sprof::symbolicator::detail
