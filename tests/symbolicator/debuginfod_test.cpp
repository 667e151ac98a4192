// debuginfod against a real server: a copy of the symbols target stripped of .symtab and DWARF
// is symbolicated while its debug file (and the stripped binary itself) exist only on a local
// `debuginfod` the test starts. Skipped, saying why, when the debuginfod program is missing.
#include <doctest/doctest.h>

#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <vector>

#include "debuginfod_server.hpp"
#include "sprof/symbolicator/symbolicator.hpp"
#include "symbols_test_support.hpp"

namespace sprof::symbolicator {
namespace {

using namespace std::chrono_literals;

const std::string kName = "sprof_symbols_target";
const std::string kInlineChainOuter = "_ZN12sprof_target18inline_chain_outerEi";

// Collects what the symbolicator reports about downloads, from its download thread.
class Events {
 public:
  std::function<void(const DebuginfodEvent&)> callback() {
    return [this](const DebuginfodEvent& e) {
      std::lock_guard lock(mutex_);
      events_.push_back(e);
      changed_.notify_all();
    };
  }
  // The first event of `kind` for `artifact`, waiting up to `timeout` for it.
  std::optional<DebuginfodEvent> wait_for(DebuginfodEvent::Kind kind, const std::string& artifact,
                                          std::chrono::seconds timeout = 60s) {
    std::unique_lock lock(mutex_);
    std::optional<DebuginfodEvent> found;
    changed_.wait_for(lock, timeout, [&] {
      for (const auto& e : events_) {
        if (e.kind == kind && e.artifact == artifact) found = e;
      }
      return found.has_value();
    });
    return found;
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<DebuginfodEvent> events_;
};

// A temporary directory with the server's files, the client cache and the server log.
struct Fixture {
  test::TempDir dir;
  std::string stripped = test::target_path("symbols/stripped/" + kName);
  std::string unstripped = test::target_path(kName);
  elf::ModuleIdentity identity = test::identity_of(stripped);
  std::optional<test::DebuginfodServer> server;

  Fixture() {
    dir.copy_in(test::target_path("symbols/" + kName + ".debug"), "served/" + kName + ".debug");
    dir.copy_in(stripped, "served/" + kName);
    // The standard cache, but private to this test (libdebuginfod reads this at each query).
    ::setenv("DEBUGINFOD_CACHE_PATH", (dir.path() + "/cache").c_str(), 1);
    server = test::DebuginfodServer::start(dir.path() + "/served", 2, dir.path() + "/server.log");
  }

  SymbolicatorOptions options(std::vector<std::string> urls, Events& events,
                              std::chrono::milliseconds wait) const {
    SymbolicatorOptions o;
    o.debug_roots.clear();  // nothing local but the stripped binary
    o.debuginfod.urls = std::move(urls);
    o.debuginfod.timeout = 30s;
    o.debuginfod.wait = wait;
    o.debuginfod.on_event = events.callback();
    return o;
  }

  std::shared_ptr<const SymbolMap> module(Symbolicator& symbolicator, const std::string& path,
                                          const std::string& code_id = {}) const {
    symbolicator.add_hint(ModuleHint{kName, identity.breakpad_id(), path, code_id});
    auto map = symbolicator.module(kName, identity.breakpad_id());
    REQUIRE_MESSAGE(map.has_value(), (map ? std::string() : map.error().message));
    return *map;
  }

  uint64_t relative(const std::string& mangled) const {
    return test::symbol_in(unstripped, mangled).address - identity.base_vaddr;
  }
};

#define SKIP_WITHOUT_SERVER(f)                                                            \
  if (!(f).server) {                                                                      \
    MESSAGE("skipped: the debuginfod program is not installed (apt install debuginfod)"); \
    return;                                                                               \
  }

// The inline chain of inline_chain_outer, as the symbols target's own DWARF gives it.
void check_full_names(const SymbolMap& map, const Fixture& f) {
  const uint64_t outer = f.relative(kInlineChainOuter);
  const uint64_t size = test::symbol_in(f.unstripped, kInlineChainOuter).size;
  std::optional<SymbolInfo> deepest;
  for (uint64_t a = outer; a < outer + size && !deepest; ++a) {
    auto info = map.lookup(RelativeAddress{a});
    if (info && info->inlines.size() == 3) deepest = info;
  }
  REQUIRE_MESSAGE(deepest.has_value(), "no address with three inline frames");
  const std::string source = test::symbols_source("inline_chain.cpp");
  CHECK(deepest->function == "sprof_target::inline_chain_outer(int)");
  CHECK(deepest->inlines[0].function == "sprof_target::chain_c(int)");
  CHECK(deepest->inlines[2].function == "sprof_target::chain_a(int)");
  CHECK(deepest->inlines[1].line == test::marker_line(source, "call_c"));
  CHECK(deepest->line == test::marker_line(source, "call_a"));
  CHECK(test::basename_of(deepest->file) == "inline_chain.cpp");
}

TEST_CASE("a stripped binary whose debug file is only on a debuginfod server gets full names") {
  Fixture f;
  SKIP_WITHOUT_SERVER(f);
  Events events;
  Symbolicator symbolicator(f.options({f.server->url()}, events, 30s));
  const auto map = f.module(symbolicator, f.stripped);
  check_full_names(*map, f);
  CHECK(map->binary_file() == f.stripped);
  CHECK(map->debug_file().starts_with(f.dir.path() + "/cache/"));
  const auto fetched = events.wait_for(DebuginfodEvent::Kind::kFetched, "debug info");
  REQUIRE(fetched.has_value());
  CHECK(fetched->module == kName);
  CHECK(fetched->build_id == f.identity.build_id.code_id());
  CHECK(fetched->url.starts_with(f.server->url()));
}

TEST_CASE("a lookup that cannot wait answers from local files; full names follow the download") {
  Fixture f;
  SKIP_WITHOUT_SERVER(f);
  Events events;
  Symbolicator symbolicator(f.options({f.server->url()}, events, 0ms));
  const uint64_t hidden = f.relative("_ZN12sprof_target12_GLOBAL__N_115hidden_functionEi");
  char unnamed[64];
  std::snprintf(unnamed, sizeof unnamed, "%s+0x%llx", kName.c_str(),
                static_cast<unsigned long long>(hidden));
  // The download has just been queued; the answer comes from the stripped binary alone, where
  // only .eh_frame knows the function.
  const auto first = f.module(symbolicator, f.stripped);
  const auto early = first->lookup(RelativeAddress{hidden});
  REQUIRE(early.has_value());
  CHECK(early->function == unnamed);
  REQUIRE(events.wait_for(DebuginfodEvent::Kind::kFetched, "debug info").has_value());
  const auto later = f.module(symbolicator, f.stripped);
  CHECK(later != first);
  const auto full = later->lookup(RelativeAddress{hidden});
  REQUIRE(full.has_value());
  CHECK(full->function == "sprof_target::(anonymous namespace)::hidden_function(int)");
  CHECK(full->line > 0);
  check_full_names(*later, f);
}

TEST_CASE("a caller that wants full names asks, waits for the downloads, and asks again") {
  Fixture f;
  SKIP_WITHOUT_SERVER(f);
  Events events;
  Symbolicator symbolicator(f.options({f.server->url()}, events, 0ms));
  const auto quick =
      f.module(symbolicator, f.stripped)->lookup(RelativeAddress{f.relative("main")});
  REQUIRE(quick.has_value());
  CHECK(quick->function.starts_with(kName + "+0x"));  // named by .eh_frame alone
  REQUIRE(symbolicator.wait_for_downloads(30s));
  check_full_names(*f.module(symbolicator, f.stripped), f);
}

TEST_CASE("a binary that is not on this machine is fetched as well, by the profile's codeId") {
  Fixture f;
  SKIP_WITHOUT_SERVER(f);
  Events events;
  Symbolicator symbolicator(f.options({f.server->url()}, events, 30s));
  const auto map =
      f.module(symbolicator, f.dir.path() + "/gone/" + kName, f.identity.build_id.code_id());
  check_full_names(*map, f);
  CHECK(map->binary_file().starts_with(f.dir.path() + "/cache/"));
  REQUIRE(events.wait_for(DebuginfodEvent::Kind::kFetched, "executable").has_value());
}

TEST_CASE("with no server reachable, symbols come from the symbol table and the failure says why") {
  Fixture f;
  SKIP_WITHOUT_SERVER(f);
  Events events;
  const std::string nowhere =
      "http://127.0.0.1:" + std::to_string(test::DebuginfodServer::closed_port());
  Symbolicator symbolicator(f.options({nowhere}, events, 30s));
  // --strip-debug: .symtab without DWARF.
  const auto map = f.module(symbolicator, test::target_path("symbols/by_build_id/" + kName));
  auto info = map->lookup(RelativeAddress{f.relative(kInlineChainOuter) + 4});
  REQUIRE(info.has_value());
  CHECK(info->function == "sprof_target::inline_chain_outer(int)");
  CHECK(info->inlines.empty());
  const auto failed = events.wait_for(DebuginfodEvent::Kind::kFailed, "debug info");
  REQUIRE(failed.has_value());
  CHECK(failed->message.find("cannot reach " + nowhere) != std::string::npos);
}

TEST_CASE("DEBUGINFOD_URLS alone makes sprof's symbolicator download nothing") {
  Fixture f;
  SKIP_WITHOUT_SERVER(f);
  // libdw contacts debuginfod by itself only through libdwfl, which sprof does not use; the
  // server's request count shows that nothing asked it.
  ::setenv("DEBUGINFOD_URLS", f.server->url().c_str(), 1);
  Events events;
  Symbolicator symbolicator(f.options({}, events, 30s));
  const auto map = f.module(symbolicator, f.stripped);
  const auto info = map->lookup(RelativeAddress{f.relative(kInlineChainOuter)});
  REQUIRE(info.has_value());
  CHECK(info->inlines.empty());
  CHECK(f.server->metric("http_requests_total{type=\"buildid\"}") == 0);
  ::unsetenv("DEBUGINFOD_URLS");
}

}  // namespace
}  // namespace sprof::symbolicator
