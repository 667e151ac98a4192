#include "sprof/web/assets.hpp"

namespace sprof::web {

const EmbeddedAsset* find_embedded_asset(std::string_view name) {
  // A handful of assets: a linear scan is the simplest correct lookup.
  for (const EmbeddedAsset& asset : embedded_assets()) {
    if (asset.name == name) return &asset;
  }
  return nullptr;
}

}  // namespace sprof::web
