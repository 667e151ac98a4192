// In-memory symbol maps for the API tests: functions with fixed ranges, files, lines and inline
// chains, so request -> reply behaviour is tested without ELF files.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "sprof/api/module_source.hpp"

namespace sprof::api::test {

// Each function answers for [function_start, function_start + max(function_size, 1)).
class FakeSymbolMap final : public symbolicator::SymbolMap {
 public:
  std::vector<symbolicator::SymbolInfo> functions;
  std::set<std::string> source_files;
  std::string debug_path = "/fake/debug";
  std::string binary_path = "/fake/binary";

  std::optional<symbolicator::SymbolInfo> lookup(RelativeAddress address) const override {
    for (const auto& f : functions) {
      const uint64_t end = f.function_start + (f.function_size > 0 ? f.function_size : 1);
      if (address.value >= f.function_start && address.value < end) return f;
    }
    return std::nullopt;
  }
  bool names_source_file(const std::string& path) const override {
    return source_files.count(path) > 0;
  }
  const std::string& debug_file() const override { return debug_path; }
  const std::string& binary_file() const override { return binary_path; }
};

// Modules keyed by "debugName/breakpadId"; counts how often each was asked for. The API may ask
// for several modules at once, from several threads.
class FakeModuleSource final : public ModuleSource {
 public:
  std::map<std::string, std::shared_ptr<const symbolicator::SymbolMap>> maps;
  std::map<std::string, int> requests;
  std::mutex mutex;

  Result<std::shared_ptr<const symbolicator::SymbolMap>> module(
      const std::string& debug_name, const std::string& breakpad_id) override {
    const std::string key = debug_name + "/" + breakpad_id;
    {
      std::lock_guard lock(mutex);
      ++requests[key];
    }
    const auto it = maps.find(key);
    if (it == maps.end()) return fail(Errc::kNotFound, "no module " + key);
    return it->second;
  }
};

inline symbolicator::SymbolInfo fake_function(std::string name, uint64_t start, uint64_t size,
                                              std::string file = {}, uint32_t line = 0) {
  symbolicator::SymbolInfo info;
  info.function = std::move(name);
  info.function_start = start;
  info.function_size = size;
  info.file = std::move(file);
  info.line = line;
  return info;
}

}  // namespace sprof::api::test
