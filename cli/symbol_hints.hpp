// cli/symbol_hints.hpp
//
// Building the symbolicator the way every command needs it: the profile's own libs say where each
// module's files were when it was recorded, --symbol-dir adds directories, --debuginfod servers
// (or $DEBUGINFOD_URLS) fetch what is missing, and the vdso, which profiles name "[vdso]" (no
// file), is pointed at a dump of sprof's own.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "options.hpp"
#include "sprof/symbolicator/symbolicator.hpp"

namespace sprof::cli {

std::unique_ptr<symbolicator::Symbolicator> make_symbolicator(
    std::vector<symbolicator::ModuleHint> hints, const SymbolSources& sources);
// Tells `symbolicator` where more modules' files are, as make_symbolicator does its first hints.
void add_hints(symbolicator::Symbolicator& symbolicator,
               std::vector<symbolicator::ModuleHint> hints);

}  // namespace sprof::cli
