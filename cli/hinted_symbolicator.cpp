#include "hinted_symbolicator.hpp"

#include <vector>

#include "sprof/presymbolicate/presymbolicate.hpp"
#include "symbol_hints.hpp"

namespace sprof::cli {

symbolicator::Symbolicator& HintedSymbolicator::for_profile(const profile::Profile& profile) {
  std::vector<symbolicator::ModuleHint> fresh;
  for (auto& hint : presymbolicate::module_hints(profile)) {
    if (hinted_.emplace(hint.debug_name, hint.breakpad_id).second) {
      fresh.push_back(std::move(hint));
    }
  }
  if (!symbolicator_) {
    symbolicator_ = make_symbolicator(std::move(fresh), sources_);
  } else if (!fresh.empty()) {
    add_hints(*symbolicator_, std::move(fresh));
  }
  return *symbolicator_;
}

}  // namespace sprof::cli
