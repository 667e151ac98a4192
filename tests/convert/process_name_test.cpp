// Processes are named by what they exec'd: the kernel's 15-byte comm completed by the image's
// first mapped file, with --include-args' arguments; threads keep their comm names.
#include "sprof/convert/process_name.hpp"

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "fake_host_files.hpp"
#include "sprof/convert/profile_converter.hpp"
#include "synthetic_records.hpp"

using namespace sprof;
using namespace sprof::convert;

namespace {

constexpr uint64_t kOrigin = 1'000'000'000;
uint64_t at_ms(uint64_t ms) { return kOrigin + ms * 1'000'000; }

perf::Mmap2Record mmap(uint32_t pid, std::string path, uint64_t addr, uint64_t ms,
                       bool executable) {
  perf::Mmap2Record m;
  m.id = test::sample_id(pid, pid, at_ms(ms));
  m.pid = pid;
  m.tid = pid;
  m.addr = addr;
  m.len = 0x1000;
  m.executable = executable;
  m.filename = std::move(path);
  return m;
}

ConverterOptions options(uint32_t root, int name_args = 0) {
  ConverterOptions o;
  o.origin_monotonic_ns = kOrigin;
  o.root_pid = root;
  o.process_name_args = name_args;
  o.proc.read_argv = [](uint32_t pid) -> std::optional<std::vector<std::string>> {
    if (pid == 100) return std::vector<std::string>{"./bench_calls_nofp", "-n", "5", "--fast"};
    return std::nullopt;
  };
  return o;
}

}  // namespace

TEST_CASE("a 15-byte comm is completed by the first file mapped, only when it is its prefix") {
  ProcessName cut = ProcessName::from_comm("bench_calls_nof");
  CHECK(cut.note_mapped_file("/build/bench/bench_calls_nofp"));
  CHECK(cut.display() == "bench_calls_nofp");
  CHECK_FALSE(cut.note_mapped_file("/build/bench/bench_calls_nofp_other"));  // only the first

  // A script: the first file is its interpreter, so the script keeps its comm.
  ProcessName script = ProcessName::from_comm("a_long_script_n");
  CHECK_FALSE(script.note_mapped_file("/usr/bin/bash"));
  CHECK_FALSE(script.note_mapped_file("/tmp/a_long_script_name.sh"));
  CHECK(script.display() == "a_long_script_n");

  // A short comm is the whole name already.
  ProcessName whole = ProcessName::from_comm("python3");
  CHECK_FALSE(whole.note_mapped_file("/usr/bin/python3.11"));
  CHECK(whole.display() == "python3");

  // Anonymous and special mappings are not files.
  ProcessName anon = ProcessName::from_comm("bench_calls_nof");
  CHECK_FALSE(anon.note_mapped_file("[vdso]"));
  CHECK(anon.note_mapped_file("/x/bench_calls_nofp"));
}

TEST_CASE("up to N arguments follow the process name") {
  ProcessName name = ProcessName::from_comm("app");
  const std::vector<std::string> argv{"/bin/app", "-n", "5"};
  CHECK(name.set_arguments(argv, 1));
  CHECK(name.display() == "app -n");
  CHECK(name.set_arguments(argv, 10));
  CHECK(name.display() == "app -n 5");
  CHECK_FALSE(name.set_arguments(argv, 2));
  CHECK(name.executable() == "app");
  CHECK(join_arguments(argv) == "/bin/app -n 5");
}

TEST_CASE("the converter names an exec'd image by its executable and threads by their comm") {
  test::FakeHostFiles files;
  ModuleCache cache(files);
  ProfileConverter c(options(100), cache);
  c.consume(test::comm_record(100, 100, "bench_calls_nof", true, at_ms(0)));
  // Data mappings count: the kernel maps the executable's first (read-only) segment first.
  c.consume(mmap(100, "/build/bench_calls_nofp", 0x555555554000, 0, false));
  c.consume(mmap(100, "/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2", 0x7f0000000000, 0, true));
  c.consume(test::fork_record(100, 100, 101, 100, at_ms(1)));
  c.consume(test::comm_record(100, 101, "worker-with-a-l", false, at_ms(1)));
  // The main thread renaming itself does not rename the process.
  c.consume(test::comm_record(100, 100, "renamed", false, at_ms(2)));
  auto p = c.finish(at_ms(5));
  REQUIRE(p.processes.size() == 1);
  CHECK(p.processes[0].name == "bench_calls_nofp");
  REQUIRE(p.processes[0].threads.size() == 2);
  CHECK(p.processes[0].threads[0].name == "GeckoMain");
  CHECK(p.processes[0].threads[0].process_name == "bench_calls_nofp");
  CHECK(p.processes[0].threads[1].name == "worker-with-a-l");
  CHECK(p.processes[0].threads[1].process_name == "bench_calls_nofp");
}

TEST_CASE("with process_name_args the exec's arguments follow the name, and forks inherit it") {
  test::FakeHostFiles files;
  ModuleCache cache(files);
  ProfileConverter c(options(100, 2), cache);
  c.consume(test::comm_record(100, 100, "bench_calls_nof", true, at_ms(0)));
  c.consume(mmap(100, "/build/bench_calls_nofp", 0x555555554000, 0, true));
  c.consume(test::fork_record(200, 100, 200, 100, at_ms(1)));
  auto p = c.finish(at_ms(5));
  REQUIRE(p.processes.size() == 2);
  CHECK(p.processes[0].name == "bench_calls_nofp -n 5");
  CHECK(p.processes[0].threads.at(0).process_name == "bench_calls_nofp -n 5");
  CHECK(p.processes[1].pid == 200);
  CHECK(p.processes[1].name == "bench_calls_nofp -n 5");
}
