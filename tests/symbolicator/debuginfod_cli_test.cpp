// `sprof load` with debuginfod, as a user runs it: a saved profile names the stripped symbols
// target; its debug file is only on a local debuginfod. The served /symbolicate/v5 answers and
// sprof's notes on stderr say what was fetched, or why names are missing.
#include <doctest/doctest.h>
#include <signal.h>

#include <fstream>
#include <regex>

#include "debuginfod_server.hpp"
#include "sprof/elf/elf_symbols.hpp"
#include "symbols_test_support.hpp"

namespace sprof::test {
namespace {

using namespace std::chrono_literals;

const std::string kName = "sprof_symbols_target";

struct Served {
  std::unique_ptr<BackgroundProcess> sprof;
  uint16_t port = 0;
  std::string token_path;  // "/<token>"
  std::string log_path;
};

struct Fixture {
  TempDir dir;
  std::string stripped = target_path("symbols/stripped/" + kName);
  elf::ModuleIdentity identity = identity_of(stripped);
  std::optional<DebuginfodServer> server;
  std::string profile;

  Fixture() {
    dir.copy_in(target_path("symbols/" + kName + ".debug"), "served/" + kName + ".debug");
    server = DebuginfodServer::start(dir.path() + "/served", 1, dir.path() + "/server.log");
    // A saved profile needs no more than its libs for symbolication.
    profile = dir.write("profile.json",
                        R"({"meta": {"version": 24, "product": "sprof: test"}, "threads": [],)"
                        R"( "libs": [{"name": ")" +
                            kName + R"(", "debugName": ")" + kName + R"(", "path": ")" + stripped +
                            R"(", "debugPath": ")" + stripped + R"(", "breakpadId": ")" +
                            identity.breakpad_id() + R"(", "codeId": ")" + identity.code_id() +
                            R"("}]})");
  }

  Served load(const std::vector<std::string>& options, const std::string& name) const {
    Served served;
    served.log_path = dir.path() + "/" + name + ".log";
    std::vector<std::string> argv = {"env",       "DEBUGINFOD_CACHE_PATH=" + dir.path() + "/cache",
                                     kSprofExe,   "load",
                                     "--no-open", "-P",
                                     "0"};
    argv.insert(argv.end(), options.begin(), options.end());
    argv.push_back(profile);
    served.sprof = std::make_unique<BackgroundProcess>(argv, served.log_path);
    const std::string log = served.sprof->wait_for_log("sprof: serving ", 30s);
    REQUIRE_MESSAGE(!log.empty(), served.sprof->log());
    std::smatch match;
    const std::regex base(R"(symbols at http://127\.0\.0\.1:(\d+)(/\S+))");
    REQUIRE(std::regex_search(log, match, base));
    served.port = static_cast<uint16_t>(std::stoi(match[1]));
    served.token_path = match[2];
    return served;
  }

  // The v5 frame for inline_chain_outer's first byte.
  std::string symbolicate(const Served& served) const {
    const auto symbol = symbol_in(target_path(kName), "_ZN12sprof_target18inline_chain_outerEi");
    const uint64_t relative = symbol.address - identity.base_vaddr;
    return http_post(served.port, served.token_path + "/symbolicate/v5",
                     R"({"jobs": [{"memoryMap": [[")" + kName + R"(", ")" + identity.breakpad_id() +
                         R"("]], "stacks": [[[0, )" + std::to_string(relative) + "]]]}]}");
  }
};

#define SKIP_WITHOUT_SERVER(f)                                                            \
  if (!(f).server) {                                                                      \
    MESSAGE("skipped: the debuginfod program is not installed (apt install debuginfod)"); \
    return;                                                                               \
  }

TEST_CASE("sprof load --debuginfod serves full names for a stripped binary and says so") {
  Fixture f;
  SKIP_WITHOUT_SERVER(f);
  Served served = f.load({"--debuginfod", f.server->url()}, "load");
  const std::string reply = f.symbolicate(served);
  CAPTURE(reply);
  CHECK(reply.find(R"x("function":"sprof_target::inline_chain_outer(int)")x") != std::string::npos);
  CHECK(reply.find("inline_chain.cpp") != std::string::npos);
  const std::string note = served.sprof->wait_for_log(
      "sprof: debuginfod: debug info of " + kName + " fetched from " + f.server->url(), 10s);
  CHECK_FALSE(note.empty());
  CHECK(served.sprof->stop(SIGTERM, 10s) == 0);
}

TEST_CASE("sprof load with no debuginfod server reachable still serves and says why") {
  Fixture f;
  SKIP_WITHOUT_SERVER(f);
  const std::string nowhere = "http://127.0.0.1:" + std::to_string(DebuginfodServer::closed_port());
  Served served = f.load({"--debuginfod", nowhere}, "load_unreachable");
  const std::string reply = f.symbolicate(served);
  CAPTURE(reply);
  // Only .eh_frame knows this stripped binary's functions.
  CHECK(reply.find(R"("function":")" + kName + "+0x") != std::string::npos);
  const std::string note =
      served.sprof->wait_for_log("sprof: debuginfod: no debug info for " + kName, 10s);
  CHECK(note.find("cannot reach " + nowhere) != std::string::npos);
  CHECK(served.sprof->stop(SIGTERM, 10s) == 0);
}

TEST_CASE("sprof load --no-debuginfod contacts no server even with DEBUGINFOD_URLS set") {
  Fixture f;
  SKIP_WITHOUT_SERVER(f);
  ::setenv("DEBUGINFOD_URLS", f.server->url().c_str(), 1);  // inherited by sprof
  Served served = f.load({"--no-debuginfod"}, "load_off");
  ::unsetenv("DEBUGINFOD_URLS");
  const std::string reply = f.symbolicate(served);
  CHECK(reply.find(R"("function":")" + kName + "+0x") != std::string::npos);
  CHECK(f.server->metric("http_requests_total{type=\"buildid\"}") == 0);
  CHECK(served.sprof->log().find("debuginfod") == std::string::npos);
  CHECK(served.sprof->stop(SIGTERM, 10s) == 0);
}

}  // namespace
}  // namespace sprof::test
