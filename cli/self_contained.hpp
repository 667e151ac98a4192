// cli/self_contained.hpp
//
// Making a profile file self-contained (symbols embedded; presymbolicate/): `record` does it by
// default, at once with --save-only, otherwise in the background while the Gecko file it wrote
// first is already served (the first page view never waits for symbols); `symbolicate` does it
// for files made before.
#pragma once

#include <cstdint>
#include <string>

#include "options.hpp"
#include "sprof/profile/profile.hpp"
#include "sprof/symbolicator/symbolicator.hpp"
#include "summary.hpp"

namespace sprof::cli {

// Replaces `path` with the self-contained form of `profile` and prints what it did;
// `previous_bytes` is the size of the file it replaces. Debuginfod downloads the symbolicator
// starts are waited for (each is bounded by `sources.debuginfod_timeout_s`) so the file carries
// full names. False when it failed (printed; `path` is untouched).
bool embed_symbols(const profile::Profile& profile, symbolicator::Symbolicator& symbolicator,
                   const std::string& path, uint64_t previous_bytes, const SymbolSources& sources);

// A symbolicator that finds the files of `profile`'s modules.
std::unique_ptr<symbolicator::Symbolicator> symbolicator_for(const profile::Profile& profile,
                                                             const SymbolSources& sources);

// `record` without --save-only: serves `path` (already written in the Gecko form) and embeds the
// symbols in the background with `symbolicator`, which the server uses too. Returns an exit code.
int serve_and_embed_symbols(const profile::Profile& profile, const std::string& path,
                            const ServeOptions& options, const RecordingFacts& facts,
                            symbolicator::Symbolicator& symbolicator);

// What `record` and `import` do once they wrote the Gecko file `path` (`written_bytes` long):
// with `presymbolicate`, embed the symbols (at once with `save_only`, else in the background
// while serving) with `symbolicator` (nullptr: one made for `profile`); without, serve it as it
// is (unless `save_only`). Returns an exit code.
int save_and_serve(const profile::Profile& profile, const std::string& path, uint64_t written_bytes,
                   bool save_only, bool presymbolicate, const ServeOptions& options,
                   const RecordingFacts& facts, symbolicator::Symbolicator* symbolicator = nullptr);

}  // namespace sprof::cli
