// --server-url / $SPROF_SERVER_URL: the origin a browser reaches sprof's server by (through
// `ssh -L` port forwarding) is the one in the printed Firefox Profiler URL, whatever port and
// address the server really listens on.
#include <doctest/doctest.h>
#include <signal.h>
#include <unistd.h>

#include <filesystem>

#include "sprof/profile/gecko_writer.hpp"
#include "sprof_test/paths.hpp"
#include "sprof_test/sample_profile.hpp"
#include "subprocess.hpp"

namespace fs = std::filesystem;
using namespace sprof::test;

namespace {

// The URL sprof prints for `load` of a sample profile run as `prefix... sprof load ... args`.
std::string printed_url(const std::vector<std::string>& prefix,
                        const std::vector<std::string>& args) {
  const fs::path dir = fs::temp_directory_path() / ("sprof-url-test-" + std::to_string(getpid()));
  fs::create_directories(dir);
  const std::string profile = (dir / "p.json").string();
  REQUIRE(sprof::profile::write_gecko_file(make_sample_profile(), profile).has_value());
  std::vector<std::string> argv = prefix;
  argv.insert(argv.end(), {kSprofExe, "load", "--no-open", "-P", "0"});
  argv.insert(argv.end(), args.begin(), args.end());
  argv.push_back(profile);
  BackgroundProcess sprof(argv, (dir / "load.log").string());
  const std::string log = sprof.wait_for_log("sprof: open ", std::chrono::seconds(30));
  INFO("log: " << sprof.log());
  CHECK(sprof.stop(SIGINT, std::chrono::seconds(30)) != -1);
  fs::remove_all(dir);
  REQUIRE_FALSE(log.empty());
  const auto at = log.find("sprof: open ") + 12;
  return log.substr(at, log.find('\n', at) - at);
}

}  // namespace

TEST_CASE("the printed URL points at --server-url, else $SPROF_SERVER_URL, else the real address") {
  const std::string direct = printed_url({}, {});
  INFO(direct);
  CHECK(direct.find("/from-url/http%3A%2F%2F127.0.0.1%3A") != std::string::npos);

  const std::string from_env = printed_url({"env", "SPROF_SERVER_URL=http://localhost:4567"}, {});
  INFO(from_env);
  CHECK(from_env.find("/from-url/http%3A%2F%2Flocalhost%3A4567%2F") != std::string::npos);

  const std::string from_flag = printed_url({"env", "SPROF_SERVER_URL=http://localhost:4567"},
                                            {"--server-url", "http://[::1]:8000/"});
  INFO(from_flag);
  CHECK(from_flag.find("/from-url/http%3A%2F%2F%5B%3A%3A1%5D%3A8000%2F") != std::string::npos);
}
