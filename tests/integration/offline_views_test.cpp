// The page of sprof's server offers the profile without the Firefox Profiler: /TOKEN/view/
// flamegraph.svg is byte for byte what `sprof flamegraph` writes for the file, and
// /TOKEN/view/report.txt holds what `sprof report` prints (function list, then the tree), for a
// self-contained file and for a Gecko file named from the local binaries. it_unwind is recorded.
#include <doctest/doctest.h>

#include <fstream>
#include <iterator>
#include <string>

#include "loaded_file.hpp"
#include "recorded_profile.hpp"
#include "sprof_test/paths.hpp"

using namespace sprof::test;

namespace {

std::string file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// `sprof report ARGS FILE` as the page's view makes it: 120 columns, no colour.
std::string report(const std::vector<std::string>& args, const std::string& file) {
  std::vector<std::string> argv{kSprofExe, "report", "--width", "120", "--color", "never"};
  argv.insert(argv.end(), args.begin(), args.end());
  argv.push_back(file);
  const ProcessResult r = run_process(argv);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  return r.out;
}

void check_views(const std::string& dir, const std::string& file) {
  LoadedFile loaded(file, dir);
  INFO("sprof load:\n" << loaded.log());

  const HttpResult page = loaded.get("/");
  REQUIRE(page.status == 200);
  CHECK(page.body.find("/view/flamegraph.svg\"") != std::string::npos);
  CHECK(page.body.find("/view/report.txt\"") != std::string::npos);
  // The footer names the version --version prints (the project's, not a literal).
  std::string version = run_process({kSprofExe, "--version"}).out;
  version.erase(version.find_last_not_of("\n") + 1);
  CHECK(page.body.find("<footer>" + version + "</footer>") != std::string::npos);

  const HttpResult svg = loaded.get("/view/flamegraph.svg");
  REQUIRE(svg.status == 200);
  CHECK(svg.header("content-type") == "image/svg+xml");
  const std::string written = dir + "/flame.svg";
  REQUIRE(run_process({kSprofExe, "flamegraph", "-o", written, file}).exit_code == 0);
  CHECK(svg.body == file_bytes(written));
  CHECK(svg.body.find("compare_values(double, double)") != std::string::npos);

  const HttpResult text = loaded.get("/view/report.txt");
  REQUIRE(text.status == 200);
  CHECK(text.header("content-type") == "text/plain; charset=utf-8");
  // The function list as `sprof report --limit 200` prints it, header included, and then the
  // tree as `sprof report --tree` prints it below the same header.
  const std::string functions = report({"--limit", "200"}, file);
  const std::string tree = report({"--tree"}, file);
  REQUIRE(text.body.rfind(functions, 0) == 0);
  const size_t header = tree.find("\n\n") + 1;  // the "# ..." lines, the same in both
  REQUIRE(header > 0);
  REQUIRE(functions.rfind(tree.substr(0, header), 0) == 0);
  CHECK(text.body.substr(functions.size()) == tree.substr(header));
  CHECK(text.body.find("calc_thread(int, long)") != std::string::npos);

  // Asked again, the same bytes (made once, kept).
  CHECK(loaded.get("/view/report.txt").body == text.body);
  CHECK(loaded.get("/view/nothing.txt").status == 404);
}

}  // namespace

TEST_CASE("offline views of a self-contained profile: sprof's flame graph and report") {
  skip_without_perf();
  const std::string dir = make_temp_dir("views-self-contained");
  check_views(dir, record_it_unwind(dir + "/p.json.gz", "2", "1"));
}

TEST_CASE("offline views of a Gecko profile, named from the local binaries") {
  skip_without_perf();
  const std::string dir = make_temp_dir("views-gecko");
  check_views(dir, record_it_unwind(dir + "/g.json.gz", "2", "1", /*gecko=*/true));
}
