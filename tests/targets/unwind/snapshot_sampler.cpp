// tests/targets/unwind/snapshot_sampler.cpp
#include "snapshot_sampler.hpp"

#include <pthread.h>
#include <signal.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstring>
#include <string>

namespace unwind_target {
namespace {

using namespace sprof::test::unwind_snapshot;

constexpr size_t kBufferBytes = size_t{64} << 20;

std::atomic<int> g_phase{0};
uint8_t* g_buffer = nullptr;
std::atomic<size_t> g_used{0};     // bytes reserved (may overshoot the buffer)
std::atomic<size_t> g_written{0};  // bytes of complete samples: reservations that fit
std::atomic<uint32_t> g_count{0};
thread_local uintptr_t t_stack_top = 0;
thread_local timer_t t_timer{};

// glibc's uc_mcontext.gregs index -> perf register number (<asm/perf_regs.h>).
struct RegMap {
  int greg;
  int perf;
};
constexpr RegMap kRegMap[] = {
    {REG_RAX, 0},  {REG_RBX, 1},  {REG_RCX, 2},  {REG_RDX, 3},  {REG_RSI, 4},  {REG_RDI, 5},
    {REG_RBP, 6},  {REG_RSP, 7},  {REG_RIP, 8},  {REG_R8, 16},  {REG_R9, 17},  {REG_R10, 18},
    {REG_R11, 19}, {REG_R12, 20}, {REG_R13, 21}, {REG_R14, 22}, {REG_R15, 23},
};

void on_sigprof(int, siginfo_t*, void* context) {
  if (g_buffer == nullptr || t_stack_top == 0) return;
  const auto* uc = static_cast<const ucontext_t*>(context);
  SnapshotSampleHeader header{};
  header.phase = static_cast<uint32_t>(g_phase.load(std::memory_order_relaxed));
  for (const RegMap& m : kRegMap) {
    header.regs[m.perf] = static_cast<uint64_t>(uc->uc_mcontext.gregs[m.greg]);
    header.regs_mask |= uint64_t{1} << m.perf;
  }
  const uint64_t sp = header.regs[7];
  if (sp >= t_stack_top) return;
  // The kernel placed this handler's frame below the interrupted sp (minus the red zone), so the
  // bytes from sp upward are exactly the interrupted program's stack.
  header.stack_start = sp;
  header.stack_top = t_stack_top;
  header.stack_size = t_stack_top - sp < kStackCopyBytes ? t_stack_top - sp : kStackCopyBytes;
  const size_t need = sizeof(header) + header.stack_size;
  const size_t at = g_used.fetch_add(need);
  if (at + need > kBufferBytes) return;
  std::memcpy(g_buffer + at, &header, sizeof(header));
  std::memcpy(g_buffer + at + sizeof(header), reinterpret_cast<const void*>(sp), header.stack_size);
  g_written.fetch_add(need);
  g_count.fetch_add(1);
}

void install_handler_once() {
  static bool installed = false;
  if (installed) return;
  installed = true;
  void* mem =
      mmap(nullptr, kBufferBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  g_buffer = mem == MAP_FAILED ? nullptr : static_cast<uint8_t*>(mem);
  struct sigaction sa {};
  sa.sa_sigaction = on_sigprof;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGPROF, &sa, nullptr);
}

bool copy_file(const char* from, const std::string& to) {
  FILE* in = std::fopen(from, "rb");
  if (in == nullptr) return false;
  FILE* out = std::fopen(to.c_str(), "wb");
  if (out == nullptr) {
    std::fclose(in);
    return false;
  }
  char buf[4096];
  size_t n = 0;
  while ((n = std::fread(buf, 1, sizeof buf, in)) > 0) std::fwrite(buf, 1, n, out);
  std::fclose(in);
  return std::fclose(out) == 0;
}

// The vdso's size: its mapping in /proc/self/maps.
size_t vdso_size(uintptr_t base) {
  FILE* maps = std::fopen("/proc/self/maps", "r");
  if (maps == nullptr) return 0;
  char line[512];
  size_t size = 0;
  while (std::fgets(line, sizeof line, maps) != nullptr) {
    unsigned long start = 0, end = 0;
    if (std::sscanf(line, "%lx-%lx", &start, &end) == 2 && start == base) size = end - start;
  }
  std::fclose(maps);
  return size;
}

}  // namespace

void start_sampling_this_thread(long interval_us) {
  install_handler_once();
  pthread_attr_t attr;
  if (pthread_getattr_np(pthread_self(), &attr) == 0) {
    void* addr = nullptr;
    size_t size = 0;
    pthread_attr_getstack(&attr, &addr, &size);
    t_stack_top = reinterpret_cast<uintptr_t>(addr) + size;
    pthread_attr_destroy(&attr);
  }
  sigevent sev{};
  sev.sigev_notify = SIGEV_THREAD_ID;
  sev.sigev_signo = SIGPROF;
  sev._sigev_un._tid = static_cast<pid_t>(syscall(SYS_gettid));
  timer_create(CLOCK_MONOTONIC, &sev, &t_timer);
  itimerspec spec{};
  spec.it_interval.tv_nsec = interval_us * 1000;
  spec.it_value = spec.it_interval;
  timer_settime(t_timer, 0, &spec, nullptr);
}

void stop_sampling_this_thread() { timer_delete(t_timer); }

void set_phase(Phase phase) { g_phase.store(static_cast<int>(phase)); }

bool write_snapshots(const char* dir) {
  const std::string base(dir);
  FILE* out = std::fopen((base + "/samples.bin").c_str(), "wb");
  if (out == nullptr) return false;
  SnapshotFileHeader header{};
  std::memcpy(header.magic, kMagic, sizeof kMagic);
  header.sample_count = g_count.load();
  const size_t used = g_written.load();
  std::fwrite(&header, sizeof header, 1, out);
  if (used > 0) std::fwrite(g_buffer, 1, used, out);
  bool ok = std::fclose(out) == 0;
  ok = copy_file("/proc/self/maps", base + "/maps.txt") && ok;
  const auto vdso = static_cast<uintptr_t>(getauxval(AT_SYSINFO_EHDR));
  const size_t size = vdso != 0 ? vdso_size(vdso) : 0;
  if (size > 0) {
    FILE* v = std::fopen((base + "/vdso.bin").c_str(), "wb");
    if (v == nullptr) return false;
    std::fwrite(reinterpret_cast<const void*>(vdso), 1, size, v);
    ok = std::fclose(v) == 0 && ok;
  }
  return ok;
}

}  // namespace unwind_target
