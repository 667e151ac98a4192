// User marker files (samply's protocol): names, lines, markers, and the directory sprof hands to
// the launched command.
#include "sprof/convert/marker_files.hpp"

#include <doctest/doctest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <string>

#include "process/launcher.hpp"
#include "process/marker_directory.hpp"
#include "sprof/recorder/local_files.hpp"

using namespace sprof;
using namespace sprof::convert;
using namespace sprof::recorder;

TEST_CASE("marker file names give the pid and, when present, the tid") {
  auto a = parse_marker_file_name("/tmp/d/marker-1234.txt");
  REQUIRE(a.has_value());
  CHECK(a->pid == 1234);
  CHECK_FALSE(a->tid.has_value());
  auto b = parse_marker_file_name("marker-12-34.txt");
  REQUIRE(b.has_value());
  CHECK(b->pid == 12);
  CHECK(b->tid == 34u);
  CHECK_FALSE(parse_marker_file_name("/tmp/marker-.txt").has_value());
  CHECK_FALSE(parse_marker_file_name("/tmp/marker-12-.txt").has_value());
  CHECK_FALSE(parse_marker_file_name("/tmp/marker-1x.txt").has_value());
  CHECK_FALSE(parse_marker_file_name("/tmp/marker-12.txt.old").has_value());
  CHECK_FALSE(parse_marker_file_name("/tmp/marker-12.txt/libc.so").has_value());
  CHECK_FALSE(parse_marker_file_name("/usr/lib/libc.so.6").has_value());
}

TEST_CASE("marker lines give start, end and a name that may contain spaces") {
  const auto lines = parse_marker_lines(
      "100 200 load config\n"
      "300 300 instant\r\n"
      "not a line\n"
      "500 400 ends before it starts\n"
      "600 700\n"  // no name
      "800 900 last, without newline");
  REQUIRE(lines.size() == 3);
  CHECK(lines[0].start_ns == 100);
  CHECK(lines[0].end_ns == 200);
  CHECK(lines[0].name == "load config");
  CHECK(lines[1].start_ns == 300);
  CHECK(lines[1].end_ns == 300);
  CHECK(lines[1].name == "instant");
  CHECK(lines[2].name == "last, without newline");
}

TEST_CASE("a marker line with equal times is an instant, otherwise an interval") {
  const auto instant = user_marker(MarkerLine{5, 5, "tick"}, 1.5, 1.5);
  CHECK(instant.name == "tick");
  CHECK(instant.phase == profile::MarkerPhase::kInstant);
  CHECK(instant.start_ms == 1.5);
  CHECK_FALSE(instant.end_ms.has_value());
  CHECK(instant.type == "UserMarker");
  CHECK(instant.category == profile::Category::kUser);
  const auto interval = user_marker(MarkerLine{5, 9, "work"}, 1.5, 2.5);
  CHECK(interval.phase == profile::MarkerPhase::kInterval);
  CHECK(interval.end_ms == 2.5);
}

TEST_CASE("marker files are remembered once each and read at the end") {
  char dir_template[] = "/tmp/sprof-mf-test-XXXXXX";
  REQUIRE(mkdtemp(dir_template) != nullptr);
  const std::string dir = dir_template;
  std::ofstream(dir + "/marker-7-8.txt") << "10 20 a\n30 30 b\n";
  std::ofstream(dir + "/marker-7.txt") << "40 50 c\n";

  LocalFiles disk;
  MarkerFiles files(disk);
  CHECK(files.note_mmap(dir + "/marker-7-8.txt"));
  CHECK(files.note_mmap(dir + "/marker-7-8.txt"));
  CHECK(files.note_mmap(dir + "/marker-7.txt"));
  CHECK(files.note_mmap(dir + "/marker-9.txt"));  // never written: skipped when read
  CHECK_FALSE(files.note_mmap("/usr/lib/libc.so.6"));
  REQUIRE(files.files().size() == 3);

  std::vector<std::string> seen;
  files.read_all([&](const MarkerFiles::File& f, const MarkerLine& line) {
    seen.push_back(std::to_string(f.pid) + "/" + std::to_string(f.tid) + " " + line.name);
  });
  CHECK(seen == std::vector<std::string>{"7/8 a", "7/8 b", "7/7 c"});
  for (const char* name : {"/marker-7-8.txt", "/marker-7.txt"}) unlink((dir + name).c_str());
  rmdir(dir.c_str());
}

TEST_CASE("the marker directory is passed in the environment and removed with its files") {
  std::string path;
  {
    std::optional<MarkerDirectory> dir;
    const auto env = marker_environment(dir);
    REQUIRE(dir.has_value());
    path = dir->path();
    REQUIRE(env == std::vector<std::string>{"SPROF_MARKER_DIR=" + path});
    struct stat st {};
    REQUIRE(stat(path.c_str(), &st) == 0);
    CHECK(S_ISDIR(st.st_mode));

    // The launched command sees the variable (and keeps the rest of the environment).
    setenv("SPROF_TEST_KEPT", "yes", 1);
    auto child = Launcher::spawn({"/bin/sh", "-c",
                                  "test \"$SPROF_MARKER_DIR\" = \"" + path +
                                      "\" && test \"$SPROF_TEST_KEPT\" = yes && "
                                      "echo 1 2 x > \"$SPROF_MARKER_DIR/marker-$$.txt\""},
                                 env);
    REQUIRE(child.has_value());
    REQUIRE(child->release().has_value());
    auto status = child->wait_for_exit();
    REQUIRE(status.has_value());
    CHECK(status->code == 0);
    unsetenv("SPROF_TEST_KEPT");
  }
  struct stat st {};
  CHECK(stat(path.c_str(), &st) != 0);  // files and directory are gone
}
