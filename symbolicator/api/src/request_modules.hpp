// The symbol maps a /symbolicate/v5 request needs, ready before its reply is written: each
// distinct module of all its jobs is resolved once (on up to one thread per core, since a
// ModuleSource builds different modules in parallel), then each map reads ahead what the
// request's addresses in it need (SymbolMap::prepare, which shares the work out too).
#pragma once

#include <memory>
#include <vector>

#include "sprof/api/module_source.hpp"
#include "symbolicate_v5_request.hpp"

namespace sprof::api::detail {

class RequestModules {
 public:
  RequestModules(ModuleSource& source, const std::vector<V5Job>& jobs);

  // The map of entry `module` of job `job`'s memoryMap; null when there is none.
  const std::shared_ptr<const symbolicator::SymbolMap>& map(size_t job, size_t module) const {
    return maps_[job][module];
  }

 private:
  std::vector<std::vector<std::shared_ptr<const symbolicator::SymbolMap>>> maps_;
};

}  // namespace sprof::api::detail
