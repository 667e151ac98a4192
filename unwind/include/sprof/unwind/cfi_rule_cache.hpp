// sprof/unwind/cfi_rule_cache.hpp
//
// `CfiRuleCache`: the `RuleSource` used while converting. CFI of each file is opened once, through
// `ModuleCfiSource::module_cfi` (the vdso from its image), shared by every process that maps
// the file, and each answer is cached:
// per exact PC (a hash lookup, the common case: samples revisit the same return addresses), and
// per CFI row range (a PC new to the cache but inside a known row costs a tree lookup, not a libdw
// query). libdw's `dwarf_cfi_addrframe` costs ~1 us, the cached path ~tens of ns.
//
// Keyed by path: a file replaced on disk while the profiler runs keeps its old CFI.
// Threading: single-threaded, like the unwinder that owns it.
#pragma once

#include <array>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "sprof/elf/cfi_module.hpp"
#include "sprof/unwind/module_cfi_source.hpp"
#include "sprof/unwind/rule_source.hpp"

namespace sprof::unwind {

struct CfiCacheStats {
  uint64_t lookups = 0;
  uint64_t pc_hits = 0;      // answered from the per-PC map
  uint64_t range_hits = 0;   // answered from a cached CFI row range
  uint64_t cfi_queries = 0;  // libdw queries (CfiModule::find_rule)
  uint64_t modules_opened = 0;
  uint64_t modules_failed = 0;  // files that could not be opened (then: no CFI for them)
};

class CfiRuleCache final : public RuleSource {
 public:
  explicit CfiRuleCache(ModuleCfiSource& cfi_source);
  ~CfiRuleCache() override;
  CodeLookup lookup(const MappedFile& module, Svma svma, bool is_return_address) override;
  const CfiCacheStats& stats() const { return stats_; }

 private:
  struct ModuleEntry;
  ModuleEntry& entry_for(const MappedFile& module);
  uint32_t resolve(ModuleEntry& entry, Svma svma, bool is_return_address);

  ModuleCfiSource& cfi_source_;
  std::unordered_map<std::string, std::unique_ptr<ModuleEntry>> modules_;
  // A stack's frames alternate between a few modules (the program, libc, libstdc++, libm...):
  // the last ones found are compared by path before hashing it. Replaced round-robin.
  struct Recent {
    std::string path;
    ModuleEntry* entry = nullptr;
  };
  std::array<Recent, 8> recent_;
  size_t next_recent_ = 0;
  CfiCacheStats stats_;
};

}  // namespace sprof::unwind
