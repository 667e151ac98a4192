// sprof/web/assets.hpp
//
// The web page sprof serves (an HTML template and its stylesheet), compiled into the binary by
// cmake/SprofEmbedAssets.cmake so an installed sprof needs no data files. This module only holds
// bytes: the server fills the template's {{PLACEHOLDERS}} and chooses what to serve.
// Everything here is immutable static data, safe to read from any thread.
#pragma once

#include <span>
#include <string_view>

namespace sprof::web {

struct EmbeddedAsset {
  std::string_view name;          // path relative to web/assets, e.g. "index.html"
  std::string_view content_type;  // MIME type chosen from the extension
  std::string_view bytes;         // the file's exact contents (static storage)
};

// Every embedded asset, in the order listed in web/CMakeLists.txt.
std::span<const EmbeddedAsset> embedded_assets();

// The asset called `name` (no leading slash), or nullptr.
const EmbeddedAsset* find_embedded_asset(std::string_view name);

}  // namespace sprof::web
