// cli/perf_data_input.hpp
//
// A perf.data file where a profile is expected (`sprof report`, `flamegraph`, `diff`, `export`):
// imported in memory exactly as `sprof import` converts it (the same perfdata/ code, unwinding
// `--call-graph dwarf` stacks on this machine's binaries), never saved. The result is the Gecko
// form, named from the local binaries as `sprof import`'s served profile would be.
#pragma once

#include <string>

#include "options.hpp"
#include "sprof/core/result.hpp"
#include "sprof/profile/profile.hpp"

namespace sprof::cli {

// The file starts with a perf.data magic: version 2, version 1 or byte-swapped, so that the
// import says what it cannot read rather than "not a profile".
bool looks_like_perf_data(const std::string& path);

// Errors as `sprof import` gives them (kMalformed, kUnsupported, kNotFound, ...), naming the file.
Result<profile::Profile> import_perf_data_file(const std::string& path,
                                               const SymbolSources& symbols);

}  // namespace sprof::cli
