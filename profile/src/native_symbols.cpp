#include "sprof/profile/native_symbols.hpp"

#include <algorithm>
#include <cstdint>

#include "frame_addresses.hpp"
#include "gecko_libs.hpp"

namespace sprof::profile {

ModuleSymbols::ModuleSymbols(std::vector<std::pair<uint64_t, AddressSymbol>> entries)
    : entries_(std::move(entries)) {
  std::stable_sort(entries_.begin(), entries_.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  entries_.erase(std::unique(entries_.begin(), entries_.end(),
                             [](const auto& a, const auto& b) { return a.first == b.first; }),
                 entries_.end());
}

const AddressSymbol* ModuleSymbols::find(uint64_t address) const {
  auto it = std::lower_bound(entries_.begin(), entries_.end(), address,
                             [](const auto& e, uint64_t a) { return e.first < a; });
  return it != entries_.end() && it->first == address ? &it->second : nullptr;
}

std::optional<AddressSymbol> ModuleSymbols::lookup(uint64_t address) const {
  if (const AddressSymbol* exact = find(address)) return *exact;
  // Entries below `address`, nearest first: the first whose function holds it answers. Entries
  // of one function are adjacent, so the walk stops at the first function that ends too early.
  auto it = std::lower_bound(entries_.begin(), entries_.end(), address,
                             [](const auto& e, uint64_t a) { return e.first < a; });
  while (it != entries_.begin()) {
    --it;
    const AddressSymbol& s = it->second;
    if (!s.names(it->first) || !s.function_size) continue;
    if (address < s.function_start || address - s.function_start >= *s.function_size) break;
    AddressSymbol function;
    function.function = s.function;
    function.function_start = s.function_start;
    function.function_size = s.function_size;
    return function;
  }
  return std::nullopt;
}

void ProfileSymbols::add_module(ModuleKey key, ModuleSymbols symbols) {
  modules_.insert_or_assign(std::move(key), std::move(symbols));
}

const ModuleSymbols* ProfileSymbols::find_module(const ModuleKey& key) const {
  auto it = modules_.find(key);
  return it == modules_.end() ? nullptr : &it->second;
}

std::vector<ModuleAddresses> native_addresses(const Profile& profile) {
  std::vector<ModuleAddresses> modules;
  std::map<ModuleKey, size_t> index_of;
  for (const Process& process : profile.processes) {
    const std::vector<Library> libs = detail::normalize_libs(process.libs);
    const detail::LibLocator locator(libs);
    // The module entry of each lib, created when a frame first uses it (indexes: `modules` grows).
    constexpr size_t kNone = SIZE_MAX;
    std::vector<size_t> lib_module(libs.size(), kNone);
    auto module_of = [&](size_t lib_index) -> ModuleAddresses& {
      if (lib_module[lib_index] != kNone) return modules[lib_module[lib_index]];
      const Library& lib = libs[lib_index];
      ModuleKey key{lib.debug_name, lib.breakpad_id};
      auto [it, inserted] = index_of.emplace(key, modules.size());
      if (inserted) modules.push_back(ModuleAddresses{std::move(key), {}, {}});
      ModuleAddresses& m = modules[it->second];
      for (const std::string* path : {&lib.path, &lib.debug_path}) {
        if (!path->empty() && std::find(m.paths.begin(), m.paths.end(), *path) == m.paths.end()) {
          m.paths.push_back(*path);
        }
      }
      lib_module[lib_index] = it->second;
      return m;
    };
    for (const Thread& thread : process.threads) {
      const std::vector<uint8_t> roles = detail::frame_roles(thread, detail::stack_uses(thread));
      for (size_t f = 0; f < thread.frames().size(); ++f) {
        if (roles[f] == 0) continue;
        const auto address =
            detail::parse_address_location(thread.strings()[thread.frames()[f].location]);
        const auto located = address ? locator.locate(*address) : std::nullopt;
        if (!located) continue;
        ModuleAddresses& m = module_of(located->lib);
        for (const auto kind : {FrameKind::kInstructionPointer, FrameKind::kReturnAddress}) {
          if (roles[f] & detail::role_bit(kind)) {
            m.addresses.push_back(lookup_address(located->relative, kind));
          }
        }
      }
    }
  }
  for (ModuleAddresses& m : modules) {
    std::sort(m.addresses.begin(), m.addresses.end());
    m.addresses.erase(std::unique(m.addresses.begin(), m.addresses.end()), m.addresses.end());
  }
  return modules;
}

std::vector<FrameLookup> allocation_stack_lookups(const Process& process, const Thread& thread,
                                                  uint32_t stack) {
  const std::vector<Library> libs = detail::normalize_libs(process.libs);
  const detail::LibLocator locator(libs);
  std::vector<FrameLookup> out;
  std::optional<uint32_t> s = stack;
  // Prefixes come before their stacks, so this walk ends even in a malformed table.
  for (size_t steps = 0; s && *s < thread.stacks().size() && steps <= thread.stacks().size();
       ++steps) {
    const StackEntry& entry = thread.stacks()[*s];
    if (entry.frame >= thread.frames().size()) break;
    FrameLookup lookup;
    const std::string& location = thread.strings()[thread.frames()[entry.frame].location];
    const auto address = detail::parse_address_location(location);
    if (const auto located = address ? locator.locate(*address) : std::nullopt) {
      const Library& lib = libs[located->lib];
      lookup.module = ModuleKey{lib.debug_name, lib.breakpad_id};
      lookup.address = lookup_address(located->relative, FrameKind::kReturnAddress);
      lookup.unnamed = detail::unknown_function_name(lookup.address);
    } else {
      lookup.unnamed = location;
    }
    out.push_back(std::move(lookup));
    s = entry.prefix;
  }
  return out;
}

}  // namespace sprof::profile
