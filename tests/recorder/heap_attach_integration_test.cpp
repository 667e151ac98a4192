// tests/recorder/heap_attach_integration_test.cpp: loading the heap interposer into a program
// that is already running (recorder/src/heap/heap_injector.hpp), as `sprof record --heap -p`
// does. The target (tests/targets/heap/hp_attach_loop.cpp) allocates 3000-byte blocks from
// attach_site in a worker thread while main sleeps in read(); the test attaches, drains the
// ring until it has seen enough of them, tells the target to stop, and checks what was
// recorded and that the target then ended normally by itself.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <variant>
#include <vector>

#include "heap/heap_injector.hpp"
#include "sprof/elf/elf_symbols.hpp"
#include "sprof/heap/heap_ring.hpp"
#include "sprof/heap/ring_reader.hpp"
#include "sprof_test/paths.hpp"

namespace {

using namespace std::chrono_literals;
using sprof::heap::AttachHow;
using sprof::heap::HeapAlloc;
using sprof::heap::HeapAttach;
using sprof::heap::HeapFree;

std::string target_path() { return std::string(sprof::test::kTargetsDir) + "/hp_attach_loop"; }
std::string interposer_path() {
  return std::string(sprof::test::kBinaryDir) + "/heap/libsprof-heap.so";
}

uint64_t now_ns() {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                   std::chrono::steady_clock::now().time_since_epoch())
                                   .count());
}

// The target with pipes on its stdin and stdout; killed at the end if it still runs.
class Target {
 public:
  Target() {
    int in[2], out[2];
    REQUIRE(::pipe2(in, O_CLOEXEC) == 0);
    REQUIRE(::pipe2(out, O_CLOEXEC) == 0);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, in[0], STDIN_FILENO);
    posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
    const std::string path = target_path();
    char* argv[] = {const_cast<char*>(path.c_str()), nullptr};
    REQUIRE(::posix_spawn(&pid_, path.c_str(), &actions, nullptr, argv, environ) == 0);
    posix_spawn_file_actions_destroy(&actions);
    ::close(in[0]);
    ::close(out[1]);
    stdin_ = in[1];
    stdout_ = out[0];
  }
  ~Target() {
    if (!reaped_) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
    ::close(stdin_);
    ::close(stdout_);
  }
  Target(const Target&) = delete;
  Target& operator=(const Target&) = delete;

  pid_t pid() const { return pid_; }
  // Output so far, reading until `needle` appears or `timeout` passes.
  const std::string& read_until(const std::string& needle, std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (output_.find(needle) == std::string::npos &&
           std::chrono::steady_clock::now() < deadline) {
      pollfd p{stdout_, POLLIN, 0};
      if (::poll(&p, 1, 100) <= 0) continue;
      char buf[4096];
      const ssize_t n = ::read(stdout_, buf, sizeof buf);
      if (n <= 0) break;
      output_.append(buf, static_cast<size_t>(n));
    }
    return output_;
  }
  void tell_to_stop() { REQUIRE(::write(stdin_, "\n", 1) == 1); }
  // The exit status, or -1 if it had not ended by `timeout`.
  int wait_exit(std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < deadline) {
      int status = 0;
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        reaped_ = true;
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      }
      std::this_thread::sleep_for(10ms);
    }
    return -1;
  }
  bool exited() const { return reaped_; }

 private:
  pid_t pid_ = -1;
  int stdin_ = -1, stdout_ = -1;
  bool reaped_ = false;
  std::string output_;
};

uint64_t hex_after(const std::string& text, const std::string& key) {
  const size_t at = text.find(key);
  REQUIRE(at != std::string::npos);
  return std::stoull(text.substr(at + key.size()), nullptr, 16);
}

uint64_t symbol_address(const std::vector<sprof::elf::ElfSymbol>& symbols, const char* name) {
  const auto s = sprof::elf::find_symbol(symbols, name);
  REQUIRE(s.has_value());
  return s->address;
}

}  // namespace

TEST_CASE(
    "attaching the heap interposer to a running program records its allocations after "
    "attach, and the program ends normally after detach") {
  auto symbols_or = sprof::elf::read_symbols(target_path());
  REQUIRE(symbols_or.has_value());
  const auto& symbols = *symbols_or;
  const auto site = sprof::elf::find_symbol(symbols, "attach_site");
  REQUIRE(site.has_value());

  Target target;
  const std::string& hello = target.read_until("ready\n", 30s);
  REQUIRE(hello.find("ready\n") != std::string::npos);
  const uint64_t bias = hex_after(hello, "main=0x") - symbol_address(symbols, "main");
  const uint64_t early_block = hex_after(hello, "early=0x");

  sprof::heap::HeapRingOptions options;
  options.sample_interval_bytes = 0;  // record every call: exact counts
  options.stack_copy_bytes = 256;
  auto ring = sprof::heap::MappedHeapRing::create(options);
  REQUIRE(ring.has_value());
  auto reader = sprof::heap::RingReader::open(ring->area());
  REQUIRE(reader.has_value());

  sprof::recorder::HeapInjection request;
  request.pid = target.pid();
  request.library_path = interposer_path();
  request.ring_path = ring->path_for_children();
  const auto injected = sprof::recorder::inject_heap_interposer(request);
  REQUIRE_MESSAGE(injected.has_value(), (injected ? "" : injected.error().message));

  std::vector<HeapAttach> attaches;
  std::map<uint64_t, uint64_t> site_blocks;  // address -> size, of attach_site's live blocks
  uint64_t site_allocs = 0, site_bytes = 0, site_frees = 0, other_allocs_of_early_size = 0;
  std::set<uint64_t> unknown_frees;  // frees of blocks no record allocated
  std::set<uint64_t> live;           // every recorded live block
  const auto visit = [&](const sprof::heap::DrainedRecord& r) {
    if (const auto* a = std::get_if<HeapAlloc>(&r.event)) {
      live.insert(a->address);
      if (a->size == 12345) ++other_allocs_of_early_size;
      uint64_t ret = 0;
      if (a->stack.size() >= 8) std::memcpy(&ret, a->stack.data(), 8);
      const uint64_t link = ret - bias;
      if (link >= site->address && link < site->address + site->size) {
        ++site_allocs;
        site_bytes += a->size;
        site_blocks[a->address] = a->size;
      }
    } else if (const auto* f = std::get_if<HeapFree>(&r.event)) {
      if (site_blocks.erase(f->address) != 0) ++site_frees;
      if (live.erase(f->address) == 0) unknown_frees.insert(f->address);
    } else if (const auto* at = std::get_if<HeapAttach>(&r.event)) {
      attaches.push_back(*at);
    }
  };

  // Until a good number of attach_site's calls are in (a few thousand a second on a quiet
  // machine; the bound is for a loaded one).
  const auto deadline = std::chrono::steady_clock::now() + 60s;
  while (site_allocs < 200 && std::chrono::steady_clock::now() < deadline) {
    reader->drain({now_ns()}, visit);
    std::this_thread::sleep_for(5ms);
  }
  target.tell_to_stop();
  const auto exit_deadline = std::chrono::steady_clock::now() + 60s;
  int status = -1;
  while (status == -1 && std::chrono::steady_clock::now() < exit_deadline) {
    reader->drain({now_ns()}, visit);
    status = target.wait_exit(10ms);
  }
  sprof::heap::DrainOptions last{now_ns()};
  last.final = true;
  reader->drain(last, visit);
  reader->close_for_writers();

  CHECK(status == 0);
  const std::string& out = target.read_until("attach_site calls=", 10s);
  const size_t at = out.find("attach_site calls=");
  REQUIRE(at != std::string::npos);
  const uint64_t target_calls = std::stoull(out.substr(at + 18));

  MESSAGE("attach_site: " << site_allocs << " allocations recorded after attach, " << site_bytes
                          << " bytes; the program made " << target_calls << " calls in all; "
                          << unknown_frees.size() << " frees of blocks from before the attach");
  REQUIRE(attaches.size() == 1);
  CHECK(attaches[0].how == AttachHow::kRunning);
  CHECK(attaches[0].pid == static_cast<uint32_t>(target.pid()));
  CHECK_FALSE(attaches[0].malloc_bypassed);

  // Only calls made after the attach: some, never more than the program made in all.
  CHECK(site_allocs >= 200);
  CHECK(site_allocs <= target_calls);
  CHECK(site_bytes == site_allocs * 3000);
  // Each block attach_site allocated after the attach is freed (recorded) before the next.
  CHECK(site_frees == site_allocs);
  CHECK(site_blocks.empty());
  // The block allocated before the attach was never recorded; its free at the end was.
  CHECK(other_allocs_of_early_size == 0);
  CHECK(unknown_frees.count(early_block) == 1);
  const auto counters = reader->counters();
  CHECK(counters.attached_processes == 1);
  CHECK(counters.allocations >= site_allocs);
}

TEST_CASE("attaching refuses a program that another tracer holds, and leaves it running") {
  Target target;
  REQUIRE(target.read_until("ready\n", 30s).find("ready\n") != std::string::npos);
  // This test process becomes the target's tracer.
  REQUIRE(::ptrace(PTRACE_SEIZE, target.pid(), nullptr, nullptr) == 0);

  auto ring = sprof::heap::MappedHeapRing::create({});
  REQUIRE(ring.has_value());
  sprof::recorder::HeapInjection request;
  request.pid = target.pid();
  request.library_path = interposer_path();
  request.ring_path = ring->path_for_children();
  const auto injected = sprof::recorder::inject_heap_interposer(request);
  REQUIRE_FALSE(injected.has_value());
  CHECK(injected.error().code == sprof::Errc::kPermissionDenied);
  CHECK(injected.error().message.find("already traced by process " + std::to_string(::getpid())) !=
        std::string::npos);

  // PTRACE_DETACH wants the tracee stopped.
  REQUIRE(::ptrace(PTRACE_INTERRUPT, target.pid(), nullptr, nullptr) == 0);
  int stop = 0;
  REQUIRE(::waitpid(target.pid(), &stop, __WALL) == target.pid());
  REQUIRE(WIFSTOPPED(stop));
  REQUIRE(::ptrace(PTRACE_DETACH, target.pid(), nullptr, nullptr) == 0);
  target.tell_to_stop();
  CHECK(target.wait_exit(60s) == 0);
}
