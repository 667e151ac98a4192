// cli/serve.hpp
//
// Serving a saved profile, shared by `record` and `load`: wires the symbolicator and its JSON API
// into the HTTP server, fills the landing page, opens the browser (or prints the URL) and runs
// until Ctrl-C.
#pragma once

#include <optional>
#include <string>

#include "options.hpp"
#include "summary.hpp"

namespace sprof::cli {

// Returns an exit code from exit_codes.hpp. Without `facts` (a saved profile), the page shows
// what the profile itself says about its recording.
int serve_profile(const std::string& profile_path, const ServeOptions& options,
                  std::optional<RecordingFacts> facts);

}  // namespace sprof::cli
