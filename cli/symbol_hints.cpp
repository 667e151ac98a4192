#include "symbol_hints.hpp"

#include <cstdio>
#include <cstdlib>

#include "background_cache_fill.hpp"
#include "console.hpp"
#include "debuginfod_notes.hpp"
#include "sprof/elf/vdso.hpp"

namespace sprof::cli {

namespace {

// Every process on one kernel maps the same vdso image, so sprof's own stands in for the
// recorded one; the build-id check rejects a dump from another kernel.
void add_vdso_hint(std::vector<symbolicator::ModuleHint>& hints) {
  for (auto& hint : hints) {
    if (hint.debug_name != elf::kVdsoName) continue;
    const char* tmp = std::getenv("TMPDIR");
    auto path = elf::write_own_vdso_image(tmp && *tmp ? tmp : "/tmp");
    if (path.has_value()) hint.path = *path;
  }
}

}  // namespace

std::unique_ptr<symbolicator::Symbolicator> make_symbolicator(
    std::vector<symbolicator::ModuleHint> hints, const SymbolSources& sources) {
  symbolicator::SymbolicatorOptions options;
  options.symbol_dirs = sources.symbol_dirs;
  options.debuginfod = debuginfod_options(sources);
  if (!sources.no_symbol_cache) {
    options.symbol_cache_dir = sources.symbol_cache_dir.empty()
                                   ? symbolicator::default_symbol_cache_dir()
                                   : sources.symbol_cache_dir;
    options.unsaved_symbol_cache =
        [directory = options.symbol_cache_dir, symbol_dirs = sources.symbol_dirs](
            const std::vector<symbolicator::SymbolCacheRequest>& requests) {
          start_background_cache_fill(directory, symbol_dirs, requests);
        };
  }
  if (verbose()) {
    options.search_trace = [](std::string_view module, std::string_view path,
                              std::string_view verdict) {
      // One call per line keeps lines from the symbolicator's threads whole.
      std::fprintf(stderr, "sprof: symbols for %.*s: %.*s%s%.*s\n", static_cast<int>(module.size()),
                   module.data(), static_cast<int>(path.size()), path.data(),
                   path.empty() ? "" : ": ", static_cast<int>(verdict.size()), verdict.data());
    };
  }
  add_vdso_hint(hints);
  options.hints = std::move(hints);
  return std::make_unique<symbolicator::Symbolicator>(std::move(options));
}

void add_hints(symbolicator::Symbolicator& symbolicator,
               std::vector<symbolicator::ModuleHint> hints) {
  add_vdso_hint(hints);
  for (auto& hint : hints) symbolicator.add_hint(std::move(hint));
}

}  // namespace sprof::cli
