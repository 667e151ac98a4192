// cli/hinted_symbolicator.hpp
//
// One symbolicator for the profiles of one recording (a rotation's intervals, a flight
// recording's windows, previews of the profile being recorded and the profile itself), so that
// each module's symbols are read once per recording, not once per profile: each profile's libs
// become hints (where the module's files were) the first time they are seen.
#pragma once

#include <memory>
#include <set>
#include <string>
#include <utility>

#include "options.hpp"
#include "sprof/profile/profile.hpp"
#include "sprof/symbolicator/symbolicator.hpp"

namespace sprof::cli {

class HintedSymbolicator {
 public:
  explicit HintedSymbolicator(SymbolSources sources) : sources_(std::move(sources)) {}

  // The symbolicator, told of the modules new in `profile`.
  symbolicator::Symbolicator& for_profile(const profile::Profile& profile);
  // Reads ahead what presymbolicating `profile` needs (a preview of a profile or window to be
  // saved later) and drops the answers: what stays is what the symbolicator read to give them
  // (symbol maps, the DWARF units the addresses fall in), which the later save reuses. -v says
  // how long it took.
  void read_ahead(const profile::Profile& profile);

 private:
  SymbolSources sources_;
  std::unique_ptr<symbolicator::Symbolicator> symbolicator_;  // made at the first profile
  std::set<std::pair<std::string, std::string>> hinted_;      // debug name, breakpad id
};

}  // namespace sprof::cli
