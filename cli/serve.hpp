// cli/serve.hpp
//
// Serving a saved profile, shared by `record` and `load`: wires the symbolicator and its JSON API
// into the HTTP server, fills the landing page, opens the browser (or prints the URL) and runs
// until Ctrl-C. A self-contained profile's embedded symbols answer for modules whose files are
// gone.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "options.hpp"
#include "sprof/server/server.hpp"
#include "sprof/symbolicator/symbolicator.hpp"
#include "summary.hpp"

namespace sprof::cli {

// Returns an exit code from exit_codes.hpp. Without `facts` (a saved profile), the page shows
// what the profile itself says about its recording.
int serve_profile(const std::string& profile_path, const ServeOptions& options,
                  std::optional<RecordingFacts> facts);

// For `compare`: serves two self-contained profiles and opens the compare view of the threads
// `compared` names.
int serve_compared_profiles(const std::string& base_path, server::ComparedProfile compared,
                            const ServeOptions& options);

// For `record`: serves with a symbolicator the caller shares (maps built once for the server and
// for presymbolication). `background` starts once the URL is printed, on its own thread, and is
// waited for before returning.
int serve_recorded_profile(const std::string& profile_path, const ServeOptions& options,
                           const RecordingFacts& facts, symbolicator::Symbolicator& symbolicator,
                           const std::function<void()>& background);

}  // namespace sprof::cli
