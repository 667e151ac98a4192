#include "hinted_symbolicator.hpp"

#include <string>
#include <vector>

#include "sprof/core/clock.hpp"
#include "sprof/core/log.hpp"
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

void HintedSymbolicator::read_ahead(const profile::Profile& profile) {
  const uint64_t start = clock_ns(CLOCK_MONOTONIC);
  presymbolicate::presymbolicate(profile, for_profile(profile));
  log::info("preview: symbols read in " +
            std::to_string((clock_ns(CLOCK_MONOTONIC) - start) / 1'000'000) + " ms");
}

}  // namespace sprof::cli
