#include "serve.hpp"

#include <cstdio>
#include <cstdlib>

#include "debuginfod_notes.hpp"
#include "exit_codes.hpp"
#include "sprof/api/module_source.hpp"
#include "sprof/api/profile_libraries.hpp"
#include "sprof/api/profile_summary.hpp"
#include "sprof/api/symbolication_api.hpp"
#include "sprof/elf/vdso.hpp"
#include "sprof/server/browser.hpp"
#include "sprof/server/server.hpp"
#include "sprof/symbolicator/symbolicator.hpp"
#include "sprof/web/assets.hpp"

namespace sprof::cli {

namespace {

std::string profiler_base(const ServeOptions& options) {
  if (!options.profiler_url.empty()) return options.profiler_url;
  if (const char* env = std::getenv("SPROF_PROFILER_URL"); env && *env) return env;
  return std::string(server::kDefaultProfilerBase);
}

server::PageInfo page_info(const RecordingFacts& facts) {
  char duration[32];
  std::snprintf(duration, sizeof duration, "%.2f s", facts.duration_s);
  return {
      {"COMMAND", facts.command},
      {"DURATION", facts.duration_s > 0 ? duration : "-"},
      {"PROCESSES", std::to_string(facts.processes)},
      {"THREADS", std::to_string(facts.threads)},
      {"SAMPLES", std::to_string(facts.samples)},
      {"LOST", std::to_string(facts.lost)},
      {"VERSION", "0.1.0"},
  };
}

server::AssetProvider embedded_assets() {
  return [](std::string_view name) -> std::optional<server::StaticAsset> {
    const auto* asset = web::find_embedded_asset(name);
    if (!asset) return std::nullopt;
    return server::StaticAsset{asset->content_type, asset->bytes};
  };
}

// The profile names the vdso "[vdso]", which is no file: point the symbolicator at a dump of
// sprof's own vdso (the same image on the same kernel; the build-id check rejects another).
void add_vdso_hint(std::vector<symbolicator::ModuleHint>& hints) {
  for (auto& hint : hints) {
    if (hint.debug_name != elf::kVdsoName) continue;
    const char* tmp = std::getenv("TMPDIR");
    auto path = elf::write_own_vdso_image(tmp && *tmp ? tmp : "/tmp");
    if (path.has_value()) hint.path = *path;
  }
}

RecordingFacts facts_from_summary(const std::string& path, const api::ProfileSummary& summary) {
  RecordingFacts facts;
  // sprof names its profiles "sprof: <command>"; the page adds its own "sprof:" prefix.
  std::string_view product = summary.product;
  if (product.starts_with("sprof: ")) product.remove_prefix(7);
  facts.command = product.empty() ? path : std::string(product);
  facts.duration_s = summary.duration_s;
  facts.processes = summary.processes;
  facts.threads = summary.threads;
  facts.samples = summary.samples;
  facts.lost = summary.lost;
  facts.output_path = path;
  return facts;
}

}  // namespace

int serve_profile(const std::string& profile_path, const ServeOptions& options,
                  std::optional<RecordingFacts> facts) {
  // The profile's libs say where each module's file was when it was recorded.
  auto bytes = api::read_maybe_gzip_file(profile_path);
  if (!bytes.has_value()) {
    std::fprintf(stderr, "sprof: cannot read %s: %s\n", profile_path.c_str(),
                 bytes.error().message.c_str());
    return kExitFailure;
  }
  symbolicator::SymbolicatorOptions symbol_options;
  symbol_options.symbol_dirs = options.symbol_dirs;
  symbol_options.debuginfod = debuginfod_options(options);
  symbol_options.hints = api::library_hints_from_profile(*bytes);
  if (!facts) {
    // `sprof load` of an arbitrary file: say so now rather than let the browser fail later.
    const api::ProfileSummary summary = api::summarize_profile(*bytes);
    if (!summary.is_gecko_profile) {
      std::fprintf(stderr, "sprof: %s is not a Gecko profile (no meta.version)\n",
                   profile_path.c_str());
      return kExitUsage;
    }
    facts = facts_from_summary(profile_path, summary);
  }
  add_vdso_hint(symbol_options.hints);
  bytes->clear();
  bytes->shrink_to_fit();
  symbolicator::Symbolicator symbolicator(std::move(symbol_options));
  api::SymbolicatorModuleSource modules(symbolicator);
  api::SymbolicationApi symbolication(modules);

  server::ServerOptions server_options;
  server_options.bind_address = options.address;
  server_options.port = options.port;
  server_options.profile_path = profile_path;
  server_options.profiler_base = profiler_base(options);
  server_options.page = page_info(*facts);
  server_options.assets = embedded_assets();
  server_options.handle_signals = true;
  server_options.api = [&symbolication](std::string_view path, std::string_view body) {
    api::HttpReply reply = symbolication.handle(path, body);
    return server::HttpReply{reply.status, std::move(reply.content_type), std::move(reply.body)};
  };

  auto server = server::Server::start(std::move(server_options));
  if (!server.has_value()) {
    std::fprintf(stderr, "sprof: cannot start the server: %s\n", server.error().message.c_str());
    return server.error().code == Errc::kInvalidArgument ? kExitUsage : kExitPermission;
  }
  const std::string& url = (*server)->profiler_url();
  const std::string page = (*server)->base_url() + "/";
  if (options.no_open) {
    std::printf("sprof: open %s\n", url.c_str());
  } else if (auto opened = server::open_in_browser(url); opened.has_value()) {
    std::printf("sprof: opened %s\n", url.c_str());
  } else {
    std::printf("sprof: could not open a browser (%s); open %s\n",
                opened.error().message.c_str(), url.c_str());
  }
  std::printf("sprof: serving %s and symbols at %s (page: %s); Ctrl-C stops\n",
              profile_path.c_str(), (*server)->base_url().c_str(), page.c_str());
  std::fflush(stdout);
  (*server)->run();
  // Without the server, Ctrl-C is no longer caught: a second one ends sprof at once. A running
  // download is let finish (cancelling it would leave libdebuginfod's cache saying "not found").
  server->reset();
  if (!symbolicator.wait_for_downloads(std::chrono::milliseconds(0))) {
    std::fprintf(stderr,
                 "sprof: letting the running debuginfod download finish (at most %d s; Ctrl-C "
                 "again quits now)\n",
                 options.debuginfod_timeout_s);
  }
  return kExitOk;
}

}  // namespace sprof::cli
