// open_in_browser with fake browsers: small scripts in a temp dir, selected through $BROWSER, and
// an empty $PATH so the real xdg-open is never found.
#include "sprof/server/browser.hpp"

#include <doctest/doctest.h>
#include <sys/stat.h>

#include <cstdlib>
#include <fstream>
#include <optional>
#include <sstream>

#include "temp_dir.hpp"

using sprof::Errc;
using sprof::server::open_in_browser;

namespace {

// Sets (or unsets) an environment variable for one scope.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, std::optional<std::string> value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value) {
      ::setenv(name, value->c_str(), 1);
    } else {
      ::unsetenv(name);
    }
  }
  ~ScopedEnv() {
    if (old_) {
      ::setenv(name_, old_->c_str(), 1);
    } else {
      ::unsetenv(name_);
    }
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

std::string write_script(const sprof::test::TempDir& dir, const std::string& name,
                         const std::string& body) {
  const std::string path = dir.write_file(name, "#!/bin/sh\n" + body);
  ::chmod(path.c_str(), 0755);
  return path;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

TEST_CASE("the url reaches the browser as one argument, never through a shell") {
  sprof::test::TempDir dir;
  REQUIRE(dir.valid());
  const std::string record = (dir.path() / "args.txt").string();
  const std::string browser =
      write_script(dir, "fake-browser", "printf '%s\\n' \"$#\" \"$1\" > '" + record + "'\n");
  ScopedEnv path("PATH", dir.path().string());
  ScopedEnv env("BROWSER", browser);
  const std::string url = "https://example.test/from-url/a%2Fb/?x=1&y=$(touch pwned);'q'";
  const auto result = open_in_browser(url);
  REQUIRE_MESSAGE(result.has_value(), result.error().message);
  CHECK(read_file(record) == "1\n" + url + "\n");
  CHECK_FALSE(std::filesystem::exists(dir.path() / "pwned"));
}

TEST_CASE("browser candidates are tried in $BROWSER order, skipping missing programs") {
  sprof::test::TempDir dir;
  REQUIRE(dir.valid());
  const std::string record = (dir.path() / "called.txt").string();
  const std::string browser = write_script(dir, "second", "echo second > '" + record + "'\n");
  ScopedEnv path("PATH", dir.path().string());
  ScopedEnv env("BROWSER", "/nonexistent/first::" + browser);
  const auto result = open_in_browser("http://127.0.0.1:1/x");
  REQUIRE_MESSAGE(result.has_value(), result.error().message);
  CHECK(read_file(record) == "second\n");
}

TEST_CASE("a browser that exits non-zero is reported as an error naming it") {
  sprof::test::TempDir dir;
  REQUIRE(dir.valid());
  const std::string browser = write_script(dir, "failing-browser", "exit 3\n");
  ScopedEnv path("PATH", dir.path().string());  // no xdg-open here
  ScopedEnv env("BROWSER", browser);
  const auto result = open_in_browser("http://127.0.0.1:1/x");
  REQUIRE_FALSE(result.has_value());
  CHECK(result.error().code == Errc::kIo);
  CHECK(result.error().message.find("failing-browser: exited with status 3") != std::string::npos);
  CHECK(result.error().message.find("xdg-open") != std::string::npos);
}

TEST_CASE("no browser and no xdg-open is a not-found error") {
  sprof::test::TempDir dir;
  REQUIRE(dir.valid());
  ScopedEnv path("PATH", dir.path().string());
  ScopedEnv env("BROWSER", std::nullopt);
  const auto result = open_in_browser("http://127.0.0.1:1/x");
  REQUIRE_FALSE(result.has_value());
  CHECK(result.error().code == Errc::kNotFound);
}

TEST_CASE("xdg-open from PATH is used when $BROWSER is unset") {
  sprof::test::TempDir dir;
  REQUIRE(dir.valid());
  const std::string record = (dir.path() / "xdg.txt").string();
  write_script(dir, "xdg-open", "printf '%s' \"$1\" > '" + record + "'\n");
  ScopedEnv path("PATH", dir.path().string());
  ScopedEnv env("BROWSER", std::nullopt);
  const auto result = open_in_browser("http://127.0.0.1:2/y");
  REQUIRE_MESSAGE(result.has_value(), result.error().message);
  CHECK(read_file(record) == "http://127.0.0.1:2/y");
}
