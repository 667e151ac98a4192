// sprof/api/module_source.hpp
//
// Where the API gets symbol maps from. `SymbolicationApi` asks a `ModuleSource` rather than a
// `Symbolicator` directly, so request handling can be tested against in-memory symbol maps and
// the real engine plugs in through `SymbolicatorModuleSource`.
//
// Threading: the API may call `module` from several request threads at once; implementations
// must be thread-safe and should cache (the API asks once per module per request).
#pragma once

#include <memory>
#include <string>

#include "sprof/core/result.hpp"
#include "sprof/symbolicator/symbolicator.hpp"

namespace sprof::api {

class ModuleSource {
 public:
  virtual ~ModuleSource() = default;
  // The symbol map of the module the Firefox Profiler calls (debugName, breakpadId); an error
  // (usually kNotFound) when there is none.
  virtual Result<std::shared_ptr<const symbolicator::SymbolMap>> module(
      const std::string& debug_name, const std::string& breakpad_id) = 0;
};

// Adapter over the real engine, which already caches maps per module.
class SymbolicatorModuleSource final : public ModuleSource {
 public:
  explicit SymbolicatorModuleSource(symbolicator::Symbolicator& symbolicator)
      : symbolicator_(symbolicator) {}
  Result<std::shared_ptr<const symbolicator::SymbolMap>> module(
      const std::string& debug_name, const std::string& breakpad_id) override;

 private:
  symbolicator::Symbolicator& symbolicator_;
};

}  // namespace sprof::api
