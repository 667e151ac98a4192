#include "sprof/presymbolicate/presymbolicate.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <numeric>
#include <set>
#include <thread>

#include "symbol_conversion.hpp"

namespace sprof::presymbolicate {

namespace {

double ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

// Looks up every address of one module; nullopt when the module has no symbols (`outcome.error`
// says why).
std::optional<profile::ModuleSymbols> symbolicate_module(const profile::ModuleAddresses& module,
                                                         symbolicator::Symbolicator& symbolicator,
                                                         ModuleOutcome& outcome) {
  const auto start = std::chrono::steady_clock::now();
  outcome.module = module.module;
  outcome.addresses = module.addresses.size();
  auto map = symbolicator.module(module.module.debug_name, module.module.breakpad_id);
  if (!map || !*map) {
    outcome.error = map ? "no symbol map" : map.error().message;
    outcome.elapsed_ms = ms_since(start);
    return std::nullopt;
  }
  outcome.from_symbol_cache = (*map)->from_symbol_cache();
  std::vector<std::pair<uint64_t, profile::AddressSymbol>> entries;
  entries.reserve(module.addresses.size());
  for (const uint64_t address : module.addresses) {
    profile::AddressSymbol symbol =
        detail::to_address_symbol((*map)->lookup(RelativeAddress{address}));
    if (symbol.names(address)) ++outcome.named;
    entries.emplace_back(address, std::move(symbol));
  }
  outcome.elapsed_ms = ms_since(start);
  return profile::ModuleSymbols(std::move(entries));
}

}  // namespace

size_t PresymbolicationReport::from_symbol_cache() const {
  size_t count = 0;
  for (const ModuleOutcome& m : modules) count += m.from_symbol_cache ? 1 : 0;
  return count;
}

std::vector<const ModuleOutcome*> PresymbolicationReport::missing() const {
  std::vector<const ModuleOutcome*> out;
  for (const ModuleOutcome& m : modules) {
    if (!m.error.empty()) out.push_back(&m);
  }
  return out;
}

Presymbolication presymbolicate(const profile::Profile& profile,
                                symbolicator::Symbolicator& symbolicator, unsigned threads) {
  const auto start = std::chrono::steady_clock::now();
  const std::vector<profile::ModuleAddresses> modules = profile::native_addresses(profile);
  std::vector<std::optional<profile::ModuleSymbols>> results(modules.size());
  std::vector<ModuleOutcome> outcomes(modules.size());

  // Most addresses first: a proxy for the biggest modules, so the last one to finish is small.
  std::vector<size_t> order(modules.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return modules[a].addresses.size() > modules[b].addresses.size();
  });
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t k; (k = next.fetch_add(1)) < order.size();) {
      const size_t i = order[k];
      results[i] = symbolicate_module(modules[i], symbolicator, outcomes[i]);
    }
  };
  if (threads == 0) threads = std::max(1U, std::thread::hardware_concurrency());
  const size_t helpers = std::min<size_t>(threads, modules.size()) - (modules.empty() ? 0 : 1);
  std::vector<std::thread> pool;
  for (size_t i = 0; i < helpers; ++i) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();

  Presymbolication out;
  for (size_t i = 0; i < modules.size(); ++i) {
    out.report.addresses += outcomes[i].addresses;
    out.report.named += outcomes[i].named;
    if (results[i]) out.symbols.add_module(modules[i].module, std::move(*results[i]));
  }
  out.report.modules = std::move(outcomes);
  out.report.elapsed_ms = ms_since(start);
  return out;
}

std::vector<symbolicator::ModuleHint> module_hints(const profile::Profile& profile) {
  std::vector<symbolicator::ModuleHint> hints;
  std::set<std::tuple<std::string, std::string, std::string>> seen;
  for (const profile::Process& process : profile.processes) {
    for (const profile::Library& lib : process.libs) {
      for (const std::string* path : {&lib.path, &lib.debug_path}) {
        if (lib.debug_name.empty() || lib.breakpad_id.empty() || path->empty()) continue;
        if (seen.emplace(lib.debug_name, lib.breakpad_id, *path).second) {
          hints.push_back({lib.debug_name, lib.breakpad_id, *path});
        }
      }
    }
  }
  return hints;
}

}  // namespace sprof::presymbolicate
