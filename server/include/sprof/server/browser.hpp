// sprof/server/browser.hpp
//
// Opens a URL in the user's browser. Candidates, in order: each ':'-separated entry of $BROWSER
// (each taken as a program name, as xdg-utils does), then xdg-open. Programs are started with
// posix_spawnp and no shell, so the URL is never interpreted. A candidate that cannot be spawned
// or exits non-zero within a short wait is skipped; one still running after the wait (a browser
// started directly) counts as success and is reaped in the background.
#pragma once

#include <string_view>

#include "sprof/core/result.hpp"

namespace sprof::server {

// Errc::kNotFound when no candidate could be started, Errc::kIo when all of them failed.
Result<void> open_in_browser(std::string_view url);

}  // namespace sprof::server
