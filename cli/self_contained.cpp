#include "self_contained.hpp"

#include <cstdio>

#include "console.hpp"
#include "exit_codes.hpp"
#include "serve.hpp"
#include "sprof/presymbolicate/presymbolicate.hpp"
#include "symbol_hints.hpp"

namespace sprof::cli {

namespace {

void print_report(const presymbolicate::SaveReport& report, const std::string& path,
                  uint64_t previous_bytes) {
  if (quiet()) return;
  const auto& symbols = report.symbols;
  const auto missing = symbols.missing();
  // A copy made beside the original (sprof compare) replaces nothing.
  const std::string was = previous_bytes > 0 ? ", was " + human_bytes(previous_bytes) : "";
  const size_t cached = symbols.from_symbol_cache();
  const std::string from_cache =
      cached > 0 ? " (" + std::to_string(cached) + " from the symbol cache)" : std::string();
  std::fprintf(stderr,
               "sprof: %s is self-contained (%s%s): %s of %s addresses named in %zu of %zu "
               "modules%s; embedded in %.0f ms\n",
               path.c_str(), human_bytes(report.bytes).c_str(), was.c_str(),
               grouped(symbols.named).c_str(), grouped(symbols.addresses).c_str(),
               symbols.modules.size() - missing.size(), symbols.modules.size(), from_cache.c_str(),
               symbols.elapsed_ms + report.write_ms);
  // Lossy but normal: say which modules stay unnamed, and why.
  constexpr size_t kShown = 5;
  for (size_t i = 0; i < missing.size() && i < kShown; ++i) {
    std::fprintf(stderr, "sprof: no symbols for %s: %s\n", missing[i]->module.debug_name.c_str(),
                 missing[i]->error.c_str());
  }
  if (missing.size() > kShown) {
    std::fprintf(stderr, "sprof: ... and %zu more modules without symbols\n",
                 missing.size() - kShown);
  }
}

}  // namespace

bool embed_symbols(const profile::Profile& profile, symbolicator::Symbolicator& symbolicator,
                   const std::string& path, uint64_t previous_bytes, const SymbolSources& sources) {
  auto report = presymbolicate::save_self_contained(profile, symbolicator, path);
  // The pass answers each module within the symbolicator's short wait; a debuginfod download
  // still running then would leave local names in a file meant to travel. Wait for it and
  // embed again: the second pass builds those modules' maps from what was downloaded.
  if (report && !symbolicator.wait_for_downloads(std::chrono::milliseconds(0))) {
    if (!quiet()) {
      std::fprintf(stderr, "sprof: waiting for debuginfod downloads to embed full names\n");
    }
    symbolicator.wait_for_downloads(std::chrono::seconds(sources.debuginfod_timeout_s));
    report = presymbolicate::save_self_contained(profile, symbolicator, path);
  }
  if (!report) {
    std::fprintf(stderr, "sprof: cannot embed symbols in %s (it stays as it was): %s\n",
                 path.c_str(), report.error().message.c_str());
    return false;
  }
  print_report(*report, path, previous_bytes);
  return true;
}

std::unique_ptr<symbolicator::Symbolicator> symbolicator_for(const profile::Profile& profile,
                                                             const SymbolSources& sources) {
  return make_symbolicator(presymbolicate::module_hints(profile), sources);
}

int serve_and_embed_symbols(const profile::Profile& profile, const std::string& path,
                            const ServeOptions& options, const RecordingFacts& facts,
                            symbolicator::Symbolicator& symbolicator) {
  bool embedded = false;
  const int code = serve_recorded_profile(path, options, facts, symbolicator, [&] {
    embed_symbols(profile, symbolicator, path, facts.output_bytes, options.symbols);
    embedded = true;  // read after the thread is joined
  });
  // The server could not start: the file is still worth making self-contained.
  if (!embedded) embed_symbols(profile, symbolicator, path, facts.output_bytes, options.symbols);
  return code;
}

int save_and_serve(const profile::Profile& profile, const std::string& path, uint64_t written_bytes,
                   bool save_only, bool presymbolicate, const ServeOptions& options,
                   const RecordingFacts& facts, symbolicator::Symbolicator* symbolicator) {
  if (!presymbolicate) return save_only ? kExitOk : serve_profile(path, options, facts);
  // The Gecko file is complete here; embedding symbols replaces it atomically when done.
  std::unique_ptr<symbolicator::Symbolicator> own;
  if (symbolicator == nullptr) {
    own = symbolicator_for(profile, options.symbols);
    symbolicator = own.get();
  }
  if (save_only) {
    embed_symbols(profile, *symbolicator, path, written_bytes, options.symbols);
    return kExitOk;
  }
  return serve_and_embed_symbols(profile, path, options, facts, *symbolicator);
}

}  // namespace sprof::cli
