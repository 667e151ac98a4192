#include "sprof/api/module_source.hpp"

namespace sprof::api {

Result<std::shared_ptr<const symbolicator::SymbolMap>> SymbolicatorModuleSource::module(
    const std::string& debug_name, const std::string& breakpad_id) {
  return symbolicator_.module(debug_name, breakpad_id);
}

}  // namespace sprof::api
