// cli/console.hpp
//
// How much sprof tells the user, chosen once from -q/-v: notes and summaries go out unless -q;
// where symbols were looked for only with -v. Errors are always printed. One setting for the
// process, because it is the user's single choice for everything sprof prints.
#pragma once

#include "options.hpp"

namespace sprof::cli {

void set_verbosity(Verbosity verbosity);
Verbosity verbosity();
inline bool quiet() { return verbosity() == Verbosity::kQuiet; }
inline bool verbose() { return verbosity() == Verbosity::kVerbose; }

}  // namespace sprof::cli
