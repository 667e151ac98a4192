#include "sprof/presymbolicate/embedded_symbols.hpp"

#include <cctype>

#include "sprof/core/log.hpp"
#include "sprof/profile/profile_file.hpp"
#include "sprof/profile/profile_reader.hpp"
#include "symbol_conversion.hpp"

namespace sprof::presymbolicate {

namespace {

std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

std::optional<symbolicator::SymbolInfo> EmbeddedSymbolMap::lookup(RelativeAddress address) const {
  auto symbol = symbols_.lookup(address.value);
  if (!symbol) return std::nullopt;
  return detail::to_symbol_info(*symbol);
}

void EmbeddedFallbackModuleSource::load_embedded() {
  auto bytes = profile::read_profile_json(profile_path_);
  if (!bytes) {
    load_error_ = bytes.error().message;
    return;
  }
  if (profile::detect_profile_format(*bytes) != profile::ProfileFormat::kProcessed) {
    load_error_ = profile_path_ + " carries no symbols (not a self-contained profile)";
    return;
  }
  auto symbols = profile::read_embedded_symbols(*bytes);
  if (!symbols) {
    load_error_ = symbols.error().message;
    return;
  }
  for (const auto& [key, module] : symbols->modules()) {
    maps_.emplace(std::pair{key.debug_name, upper(key.breakpad_id)},
                  std::make_shared<const EmbeddedSymbolMap>(module, profile_path_));
  }
}

Result<std::shared_ptr<const symbolicator::SymbolMap>> EmbeddedFallbackModuleSource::module(
    const std::string& debug_name, const std::string& breakpad_id) {
  auto live = live_.module(debug_name, breakpad_id);
  if (live && *live) return live;
  std::call_once(loaded_, [this] { load_embedded(); });
  auto it = maps_.find({debug_name, upper(breakpad_id)});
  if (it != maps_.end()) {
    log::debug("symbols of " + debug_name + "/" + breakpad_id + " from " + profile_path_);
    return std::shared_ptr<const symbolicator::SymbolMap>(it->second);
  }
  if (!load_error_.empty()) log::debug(load_error_);
  return live;
}

}  // namespace sprof::presymbolicate
