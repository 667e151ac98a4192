// cli/debuginfod_notes.hpp
//
// How the command line turns into the symbolicator's debuginfod settings, and how what happens
// to the downloads is told to the user: a progress line while one runs (on a terminal only) and
// one line per file saying what was fetched, from where, or why not.
#pragma once

#include "options.hpp"
#include "sprof/symbolicator/symbolicator.hpp"

namespace sprof::cli {

// Servers from --debuginfod (those alone when given), else $DEBUGINFOD_URLS; none with
// --no-debuginfod. Notes go to stderr.
symbolicator::DebuginfodOptions debuginfod_options(const SymbolSources& options);

}  // namespace sprof::cli
