// cli/background_cache_fill.hpp: the modules a command's symbol cache had no time to save
// (SymbolicatorOptions::unsaved_symbol_cache), handed to `sprof cache fill` in a process of
// their own, so that the command ends now and the next run still finds them cached.
#pragma once

#include <string>
#include <vector>

#include "sprof/symbolicator/symbolicator.hpp"

namespace sprof::cli {

// The arguments of `sprof cache fill` for `requests` (after the "cache fill" words).
std::vector<std::string> cache_fill_arguments(
    const std::string& directory, const std::vector<std::string>& symbol_dirs,
    const std::vector<symbolicator::SymbolCacheRequest>& requests);

// The requests `sprof cache fill` was given; nullopt when the modules are not groups of four.
std::optional<std::vector<symbolicator::SymbolCacheRequest>> cache_fill_requests(
    const std::vector<std::string>& modules);

// Starts this executable as `sprof cache fill ...` in a new session, its standard streams on
// /dev/null and no other descriptor inherited (a caller reading sprof's output through a pipe
// sees its end when sprof ends), and does not wait for it.
void start_background_cache_fill(const std::string& directory,
                                 const std::vector<std::string>& symbol_dirs,
                                 const std::vector<symbolicator::SymbolCacheRequest>& requests);

}  // namespace sprof::cli
