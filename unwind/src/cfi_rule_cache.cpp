// unwind/src/cfi_rule_cache.cpp
#include "sprof/unwind/cfi_rule_cache.hpp"

#include <array>
#include <limits>

#include "sprof/core/address.hpp"
#include "sprof/core/log.hpp"
#include "sprof/core/pair_index.hpp"
#include "sprof/unwind/sigreturn_frame.hpp"

namespace sprof::unwind {
namespace {

constexpr uint32_t kNoRule = std::numeric_limits<uint32_t>::max();
constexpr uint32_t kSigreturn = kNoRule - 1;
// Bounds the per-PC map of one module (24 bytes a slot, at most half full); past it the map
// restarts and refills from the range cache.
constexpr size_t kMaxCachedPcs = size_t{1} << 20;

}  // namespace

struct CfiRuleCache::ModuleEntry {
  std::unique_ptr<elf::CfiModule> cfi;  // null when the file could not be opened
  std::vector<elf::FrameRule> rules;
  std::map<uint64_t, uint32_t> rule_by_range_start;  // rows read from CFI, by pc_start
  PairIndex by_pc;  // (svma, is_return_address) -> rule index or kNoRule/kSigreturn

  bool is_sigreturn(Svma svma, bool is_return_address) const {
    std::array<uint8_t, kSigreturnCode.size()> code{};
    if (cfi->read_code(svma, code) && is_sigreturn_code(code)) return true;
    // A sample (not a return address) can also stop on the trampoline's `syscall`.
    return !is_return_address && svma.value >= kSigreturnSyscallOffset &&
           cfi->read_code(Svma{svma.value - kSigreturnSyscallOffset}, code) &&
           is_sigreturn_code(code);
  }

  uint32_t cached_row(uint64_t pc) const {
    auto it = rule_by_range_start.upper_bound(pc);
    if (it == rule_by_range_start.begin()) return kNoRule;
    --it;
    return pc < rules[it->second].pc_end ? it->second : kNoRule;
  }
};

CfiRuleCache::CfiRuleCache(ModuleCfiSource& cfi_source) : cfi_source_(cfi_source) {}
CfiRuleCache::~CfiRuleCache() = default;

CfiRuleCache::ModuleEntry& CfiRuleCache::entry_for(const MappedFile& module) {
  for (const Recent& r : recent_) {
    if (r.entry != nullptr && r.path == module.path) return *r.entry;
  }
  auto& slot = modules_[module.path];
  if (!slot) {
    slot = std::make_unique<ModuleEntry>();
    auto opened = module.vdso_image ? elf::CfiModule::open_image(*module.vdso_image)
                                    : cfi_source_.module_cfi(module.path);
    if (opened) {
      slot->cfi = std::move(*opened);
      ++stats_.modules_opened;
    } else {
      ++stats_.modules_failed;
      log::debug("unwind: no CFI for " + module.path + ": " + opened.error().message);
    }
  }
  recent_[next_recent_] = Recent{module.path, slot.get()};
  next_recent_ = (next_recent_ + 1) % recent_.size();
  return *slot;
}

CodeLookup CfiRuleCache::lookup(const MappedFile& module, Svma svma, bool is_return_address) {
  ++stats_.lookups;
  ModuleEntry& entry = entry_for(module);
  if (!entry.cfi) return {};
  uint32_t index = kNoRule;
  if (auto found = entry.by_pc.find(svma.value, is_return_address ? 1 : 0)) {
    ++stats_.pc_hits;
    index = *found;
  } else {
    index = resolve(entry, svma, is_return_address);
    if (entry.by_pc.size() >= kMaxCachedPcs) entry.by_pc.clear();
    entry.by_pc.insert(svma.value, is_return_address ? 1 : 0, index);
  }
  if (index == kNoRule) return {};
  if (index == kSigreturn) return {CodeLookup::Kind::kSigreturn, nullptr};
  return {CodeLookup::Kind::kRule, &entry.rules[index]};
}

// Answers a PC the per-PC map has not seen; returns a rule index or kNoRule/kSigreturn.
uint32_t CfiRuleCache::resolve(ModuleEntry& entry, Svma svma, bool is_return_address) {
  if (entry.is_sigreturn(svma, is_return_address)) return kSigreturn;
  const uint64_t pc = lookup_address(
      svma.value, is_return_address ? FrameKind::kReturnAddress : FrameKind::kInstructionPointer);
  if (uint32_t cached = entry.cached_row(pc); cached != kNoRule) {
    ++stats_.range_hits;
    return cached;
  }
  ++stats_.cfi_queries;
  auto rule = entry.cfi->find_rule(Svma{pc});
  if (!rule || entry.rules.size() >= kSigreturn) return kNoRule;
  const auto index = static_cast<uint32_t>(entry.rules.size());
  // Only rows read from CFI go into the range map: a synthesised rule covers a whole section
  // that FDEs may partly cover too, and a row must contain the PC it was asked for.
  const bool row_usable = !rule->synthesized && rule->pc_start <= pc && pc < rule->pc_end;
  entry.rules.push_back(std::move(*rule));
  if (row_usable) entry.rule_by_range_start.insert_or_assign(entry.rules.back().pc_start, index);
  return index;
}

}  // namespace sprof::unwind
