#include "serve.hpp"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "console.hpp"
#include "definitions/definitions.hpp"
#include "exit_codes.hpp"
#include "profile_views.hpp"
#include "sprof/api/module_source.hpp"
#include "sprof/api/symbolication_api.hpp"
#include "sprof/presymbolicate/embedded_symbols.hpp"
#include "sprof/profile/profile_file.hpp"
#include "sprof/profile/profile_overview.hpp"
#include "sprof/profile/profile_reader.hpp"
#include "sprof/server/browser.hpp"
#include "sprof/server/server.hpp"
#include "sprof/symbolicator/symbolicator.hpp"
#include "sprof/web/assets.hpp"
#include "symbol_hints.hpp"

namespace sprof::cli {

namespace {

std::string profiler_base(const ServeOptions& options) {
  if (!options.profiler_url.empty()) return options.profiler_url;
  if (const char* env = std::getenv("SPROF_PROFILER_URL"); env && *env) return env;
  return std::string(server::kDefaultProfilerBase);
}

// --server-url, else $SPROF_SERVER_URL, else "" (the address the server listens on).
std::string server_url(const ServeOptions& options) {
  if (!options.server_url.empty()) return options.server_url;
  if (const char* env = std::getenv("SPROF_SERVER_URL"); env && *env) return env;
  return {};
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
      {"VERSION", version_number()},
  };
}

server::AssetProvider embedded_assets() {
  return [](std::string_view name) -> std::optional<server::StaticAsset> {
    const auto* asset = web::find_embedded_asset(name);
    if (!asset) return std::nullopt;
    return server::StaticAsset{asset->content_type, asset->bytes};
  };
}

RecordingFacts facts_from_summary(const std::string& path,
                                  const profile::ProfileOverview& summary) {
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

// Where the profile's libs say each module's file was when it was recorded, for the symbolicator.
void add_module_hints(profile::ProfileOverview& overview,
                      std::vector<symbolicator::ModuleHint>& hints) {
  for (profile::LibraryLocation& lib : overview.libraries) {
    hints.push_back({std::move(lib.debug_name), std::move(lib.breakpad_id), std::move(lib.path),
                     std::move(lib.code_id)});
  }
}

// Runs `work` on its own thread; `finish` waits for it, saying so when the wait is noticeable.
class BackgroundTask {
 public:
  explicit BackgroundTask(const std::function<void()>& work) {
    if (work)
      thread_ = std::thread([this, work] {
        work();
        done_ = true;
      });
  }
  ~BackgroundTask() { finish(); }
  BackgroundTask(const BackgroundTask&) = delete;
  BackgroundTask& operator=(const BackgroundTask&) = delete;

  void finish() {
    if (!thread_.joinable()) return;
    if (!done_ && !quiet()) {
      std::fprintf(stderr, "sprof: finishing the profile file before exiting\n");
    }
    thread_.join();
  }

 private:
  std::thread thread_;
  std::atomic<bool> done_{false};
};

// Serves until Ctrl-C. `background` (if any) starts once the URL is printed and is waited for
// before returning.
int run_server(const std::string& profile_path, const ServeOptions& options,
               const RecordingFacts& facts, api::ModuleSource& modules,
               symbolicator::Symbolicator& symbolicator, const std::function<void()>& background,
               std::optional<server::ComparedProfile> compare = std::nullopt) {
  api::SymbolicationApi symbolication(modules);
  server::ServerOptions server_options;
  server_options.bind_address = options.address;
  server_options.port = options.port;
  server_options.profile_path = profile_path;
  const std::string served =
      compare ? profile_path + " and " + compare->path : profile_path;  // for the message below
  server_options.compare = std::move(compare);
  server_options.profiler_base = profiler_base(options);
  server_options.public_url = server_url(options);
  server_options.page = page_info(facts);
  server_options.assets = embedded_assets();
  server_options.handle_signals = true;
  server_options.api = [&symbolication](std::string_view path, std::string_view body) {
    return symbolication.handle(path, body);
  };
  // The report and flame graph the page offers offline; of one profile only, so not for compare.
  std::optional<ProfileViews> views;
  if (server_options.compare) {
    server_options.page.insert_or_assign("OFFLINE_VIEWS", "hidden");
  } else {
    views.emplace(profile_path, options.symbols);
    server_options.views = [&views](std::string_view name) { return views->view(name); };
  }

  auto server = server::Server::start(std::move(server_options));
  if (!server.has_value()) {
    std::fprintf(stderr, "sprof: cannot start the server: %s\n", server.error().message.c_str());
    return server.error().code == Errc::kInvalidArgument ? kExitUsage : kExitPermission;
  }
  const std::string& url = (*server)->profiler_url();
  const std::string page = (*server)->base_url() + "/";
  if (options.no_open) {
    std::fprintf(stderr, "sprof: open %s\n", url.c_str());
  } else if (auto opened = server::open_in_browser(url); opened.has_value()) {
    std::fprintf(stderr, "sprof: opened %s\n", url.c_str());
  } else {
    std::fprintf(stderr, "sprof: could not open a browser (%s); open %s\n",
                 opened.error().message.c_str(), url.c_str());
  }
  if (!quiet()) {
    std::fprintf(stderr, "sprof: serving %s and symbols at %s (page: %s); Ctrl-C stops\n",
                 served.c_str(), (*server)->base_url().c_str(), page.c_str());
  }
  BackgroundTask task(background);
  (*server)->run();
  // Without the server, Ctrl-C is no longer caught: a second one ends sprof at once. A running
  // download is let finish (cancelling it would leave libdebuginfod's cache saying "not found").
  server->reset();
  if (!symbolicator.wait_for_downloads(std::chrono::milliseconds(0))) {
    std::fprintf(stderr,
                 "sprof: letting the running debuginfod download finish (at most %d s; Ctrl-C "
                 "again quits now)\n",
                 options.symbols.debuginfod_timeout_s);
  }
  task.finish();
  return kExitOk;
}

}  // namespace

int serve_profile(const std::string& profile_path, const ServeOptions& options,
                  std::optional<RecordingFacts> facts) {
  // The profile's libs say where each module's file was when it was recorded.
  auto bytes = profile::read_profile_json(profile_path);
  if (!bytes.has_value()) {
    // The message names the file; a file that is not a profile is a usage error, as below.
    std::fprintf(stderr, "sprof: cannot load the profile: %s\n", bytes.error().message.c_str());
    return bytes.error().code == Errc::kMalformed ? kExitUsage : kExitFailure;
  }
  // One parse gives the format, the page's facts and the libs' locations.
  auto overview = profile::read_profile_overview(*bytes);
  bytes->clear();
  bytes->shrink_to_fit();
  if (!facts) {
    // `sprof load` of an arbitrary file: say what is wrong now rather than let the browser fail
    // later; a file that is not JSON is told apart from JSON that is not a profile.
    if (!overview.has_value()) {
      std::fprintf(stderr, "sprof: cannot load %s: %s\n", profile_path.c_str(),
                   overview.error().message.c_str());
      return overview.error().code == Errc::kMalformed ? kExitUsage : kExitFailure;
    }
    if (overview->format == profile::ProfileFormat::kUnknown) {
      std::fprintf(stderr, "sprof: %s is not a Gecko profile (no meta.version)\n",
                   profile_path.c_str());
      return kExitUsage;
    }
    facts = facts_from_summary(profile_path, *overview);
  }
  // A profile just recorded always parses; were it not to, it is served without the hints.
  std::vector<symbolicator::ModuleHint> hints;
  if (overview.has_value()) add_module_hints(*overview, hints);
  const auto symbolicator = make_symbolicator(std::move(hints), options.symbols);
  // A self-contained file answers from its own symbols for modules whose files are gone.
  presymbolicate::EmbeddedFallbackModuleSource modules(*symbolicator, profile_path);
  return run_server(profile_path, options, *facts, modules, *symbolicator, {});
}

int serve_compared_profiles(const std::string& base_path, server::ComparedProfile compared,
                            const ServeOptions& options) {
  // Both files name their modules; the symbolicator knows where both found them.
  std::vector<symbolicator::ModuleHint> hints;
  std::optional<RecordingFacts> facts;
  for (const std::string* path : {&base_path, static_cast<const std::string*>(&compared.path)}) {
    auto bytes = profile::read_profile_json(*path);
    if (!bytes.has_value()) {
      std::fprintf(stderr, "sprof: cannot load %s: %s\n", path->c_str(),
                   bytes.error().message.c_str());
      return kExitFailure;
    }
    auto overview = profile::read_profile_overview(*bytes);
    if (!overview.has_value()) {
      std::fprintf(stderr, "sprof: cannot load %s: %s\n", path->c_str(),
                   overview.error().message.c_str());
      return kExitFailure;
    }
    if (!facts) facts = facts_from_summary(base_path, *overview);
    add_module_hints(*overview, hints);
  }
  const auto symbolicator = make_symbolicator(std::move(hints), options.symbols);
  // Both files are self-contained (compare_command.cpp makes them so): the front end finds their
  // names inside and asks the server only for sources and assembly, which need the binaries.
  api::SymbolicatorModuleSource modules(*symbolicator);
  return run_server(base_path, options, *facts, modules, *symbolicator, {}, std::move(compared));
}

int serve_recorded_profile(const std::string& profile_path, const ServeOptions& options,
                           const RecordingFacts& facts, symbolicator::Symbolicator& symbolicator,
                           const std::function<void()>& background) {
  api::SymbolicatorModuleSource modules(symbolicator);
  return run_server(profile_path, options, facts, modules, symbolicator, background);
}

}  // namespace sprof::cli
