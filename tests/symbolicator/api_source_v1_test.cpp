// /source/v1: files are served only when symbolication at the given address names them
// (docs/firefox-profiler-format.md, "/source/v1").
#include <doctest/doctest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "api_fake_modules.hpp"
#include "sprof/api/symbolication_api.hpp"

namespace {

using sprof::api::SymbolicationApi;
using sprof::api::test::fake_function;
using sprof::api::test::FakeModuleSource;
using sprof::api::test::FakeSymbolMap;

// A source file in a fresh temporary directory, removed at the end of the test.
struct TempSource {
  std::string dir;
  std::string path;
  explicit TempSource(const std::string& content) {
    char pattern[] = "/tmp/sprof_api_source_XXXXXX";
    REQUIRE(mkdtemp(pattern) != nullptr);
    dir = pattern;
    path = dir + "/demo.c";
    std::ofstream(path, std::ios::binary) << content;
  }
  ~TempSource() {
    ::unlink(path.c_str());
    ::rmdir(dir.c_str());
  }
};

std::string request(const std::string& offset, const std::string& file) {
  return R"({"debugName": "demo", "debugId": "0A", "moduleOffset": )" + offset + R"(, "file": ")" +
         file + R"("})";
}

struct Fixture {
  FakeModuleSource modules;
  SymbolicationApi api{modules};
  std::shared_ptr<FakeSymbolMap> map = std::make_shared<FakeSymbolMap>();
  explicit Fixture(const std::string& source_path) {
    map->functions.push_back(fake_function("main", 0x100, 0x40, source_path, 7));
    auto outer = fake_function("outer", 0x200, 0x40, "/src/outer.c", 3);
    outer.inlines.push_back({"inlined", source_path, 9});
    map->functions.push_back(outer);
    map->functions.push_back(fake_function("other", 0x300, 0x40, "/etc/passwd", 1));
    map->source_files = {source_path, "/src/outer.c"};
    modules.maps["demo/0A"] = map;
  }
};

}  // namespace

TEST_CASE("source v1 serves a file that the function at moduleOffset is in") {
  TempSource source("int main() { return 0; }\n");
  Fixture f(source.path);
  const auto reply = f.api.handle("/source/v1", request(R"("0x110")", source.path));
  CHECK(reply.status == 200);
  CHECK(reply.body == R"({"file":")" + source.path + R"(","source":"int main() { return 0; }\n"})");
}

TEST_CASE("source v1 serves a file named by an inline frame at moduleOffset") {
  TempSource source("static inline int inlined(void);\n");
  Fixture f(source.path);
  const auto reply = f.api.handle("/source/v1", request("512", source.path));
  CHECK(reply.status == 200);
  CHECK(reply.body.find(R"("source":"static inline int inlined(void);\n")") != std::string::npos);
}

TEST_CASE("source v1 refuses /etc/passwd and files not named at moduleOffset") {
  TempSource source("secret\n");
  Fixture f(source.path);
  SUBCASE("a file no symbol names") {
    const auto reply = f.api.handle("/source/v1", request(R"("0x110")", "/etc/passwd"));
    CHECK(reply.status == 200);
    CHECK(reply.body.starts_with(R"({"error":")"));
    CHECK(reply.body.find("root:") == std::string::npos);
  }
  SUBCASE("a file named by a symbol whose debug info does not list it") {
    // The fake's lookup says /etc/passwd at 0x300, but names_source_file does not.
    const auto reply = f.api.handle("/source/v1", request(R"("0x300")", "/etc/passwd"));
    CHECK(reply.body.starts_with(R"({"error":")"));
    CHECK(reply.body.find("root:") == std::string::npos);
  }
  SUBCASE("a real source file, but at an address of another function") {
    const auto reply = f.api.handle("/source/v1", request(R"("0x300")", source.path));
    CHECK(reply.body.starts_with(R"({"error":")"));
    CHECK(reply.body.find("secret") == std::string::npos);
  }
  SUBCASE("an address with no symbol") {
    const auto reply = f.api.handle("/source/v1", request(R"("0x9000")", source.path));
    CHECK(reply.body.starts_with(R"({"error":")"));
  }
  SUBCASE("an unknown module") {
    const auto reply = f.api.handle(
        "/source/v1", R"({"debugName": "x", "debugId": "0B", "moduleOffset": "0x110", "file": ")" +
                          source.path + R"("})");
    CHECK(reply.status == 200);
    CHECK(reply.body.find("no symbols for module x/0B") != std::string::npos);
  }
}

// Runs the test in `dir` and goes back to where it was.
struct WorkingDirectory {
  std::filesystem::path previous = std::filesystem::current_path();
  explicit WorkingDirectory(const std::string& dir) { std::filesystem::current_path(dir); }
  ~WorkingDirectory() { std::filesystem::current_path(previous); }
};

TEST_CASE(
    "source v1 refuses a relative file name instead of opening it in the server's directory") {
  // Debian's glibc names its sources relative to a build root ("iconv/gconv_conf.c"); opened as
  // is, that name is looked up wherever `sprof load` runs, where anyone may have put a symlink.
  TempSource secret("root:secret\n");
  const std::filesystem::path dir = secret.dir + "/cwd";
  std::filesystem::create_directories(dir / "iconv");
  std::filesystem::create_symlink(secret.path, dir / "iconv/gconv_conf.c");
  std::ofstream(dir / "plain.c") << "root:plain\n";
  // A build that mapped its directory to /proc/self/cwd names the server's directory too.
  for (const std::string relative :
       {"iconv/gconv_conf.c", "plain.c", "./plain.c", "/proc/self/cwd/plain.c"}) {
    CAPTURE(relative);
    Fixture f(relative);
    const WorkingDirectory in(dir.string());
    const auto reply = f.api.handle("/source/v1", request(R"("0x110")", relative));
    CHECK(reply.status == 200);
    CHECK(reply.body.starts_with(R"({"error":")"));
    CHECK(reply.body.find("not served") != std::string::npos);
    CHECK(reply.body.find("root:") == std::string::npos);
  }
  std::filesystem::remove_all(dir);
}

TEST_CASE("source v1 refuses a symlink where the debug info names a source file") {
  TempSource secret("root:secret\n");
  const std::string planted = secret.dir + "/planted.c";
  std::filesystem::create_symlink(secret.path, planted);
  Fixture f(planted);
  const auto reply = f.api.handle("/source/v1", request(R"("0x110")", planted));
  CHECK(reply.status == 200);
  CHECK(reply.body.starts_with(R"({"error":")"));
  CHECK(reply.body.find("is a symbolic link") != std::string::npos);
  CHECK(reply.body.find("root:") == std::string::npos);
  ::unlink(planted.c_str());
}

TEST_CASE("source v1 turns bytes that are not UTF-8 into replacement characters") {
  TempSource source(
      std::string("a\xff"
                  "b\n",
                  4));
  Fixture f(source.path);
  const auto reply = f.api.handle("/source/v1", request(R"("0x100")", source.path));
  CHECK(reply.body.find("\"source\":\"a\xEF\xBF\xBD"
                        "b\\n\"") != std::string::npos);
}

TEST_CASE("source v1 refuses files above the size limit") {
  TempSource source("");
  REQUIRE(::truncate(source.path.c_str(), sprof::api::kMaxSourceFileBytes + 1) == 0);
  Fixture f(source.path);
  const auto reply = f.api.handle("/source/v1", request(R"("0x100")", source.path));
  CHECK(reply.status == 200);
  CHECK(reply.body.starts_with(R"({"error":")"));
  CHECK(reply.body.find("size limit") != std::string::npos);
}

TEST_CASE("source v1 rejects requests with missing or mistyped fields with 400") {
  Fixture f("/src/demo.c");
  const char* bodies[] = {
      R"({"debugId": "0A", "moduleOffset": "0x1", "file": "/a"})",
      R"({"debugName": "demo", "debugId": "0A", "file": "/a"})",
      R"({"debugName": "demo", "debugId": "0A", "moduleOffset": "zz", "file": "/a"})",
      R"({"debugName": "demo", "debugId": "0A", "moduleOffset": -1, "file": "/a"})",
      R"({"debugName": "demo", "debugId": "0A", "moduleOffset": "0x1", "file": 5})",
      R"(["demo"])",
      R"({"debugName": )",
  };
  for (const char* body : bodies) {
    CAPTURE(body);
    const auto reply = f.api.handle("/source/v1", body);
    CHECK(reply.status == 400);
    CHECK(reply.body.starts_with(R"({"error":")"));
  }
}
