// hp_signal [SIGNALS [SPIN]]: the main thread allocates and frees 32-byte blocks in a loop
// (spinning SPIN iterations between pairs, default 0) while a second thread sends it SIGUSR1
// (default 500 times); the handler, on an alternate signal stack, allocates and frees a
// 777-byte block. A busy thread gets a signal at its next interrupt, anywhere in user code,
// a few milliseconds later here; SPIN keeps the number of allocations in that time bounded.
// Async-signal-unsafe, as real programs do it anyway; glibc's per-thread cache keeps the two sizes
// apart, so only the interposer is on trial. Prints how many handler calls ran and where the
// alternate stack is.
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>

#include <atomic>
#include <cstdlib>

#include "heap_target.hpp"

namespace {

std::atomic<int> g_handled{0};
int g_signals = 500;
long g_spin = 0;

}  // namespace

extern "C" __attribute__((noinline)) void handler_site() {
  void* p = std::malloc(777);
  keep(p);
  std::free(p);
}

namespace {

void on_signal(int) {
  handler_site();
  g_handled.fetch_add(1, std::memory_order_relaxed);
}

void* sender(void* arg) {
  const pthread_t target = *static_cast<pthread_t*>(arg);
  for (int sent = 0; sent < g_signals; ++sent) {
    // One at a time: wait until the previous one was handled (pending signals merge).
    // Sleeping, not spinning: on a machine with few cores the recorder needs the CPU.
    while (g_handled.load(std::memory_order_relaxed) < sent) usleep(50);
    pthread_kill(target, SIGUSR1);
  }
  return nullptr;
}

}  // namespace

int main(int argc, char** argv) {
  print_identity();
  if (argc > 1) g_signals = std::atoi(argv[1]);
  if (argc > 2) g_spin = std::atol(argv[2]);
  constexpr size_t kAltStackBytes = 64 * 1024;
  void* alt =
      mmap(nullptr, kAltStackBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  stack_t ss{};
  ss.ss_sp = alt;
  ss.ss_size = kAltStackBytes;
  sigaltstack(&ss, nullptr);
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sa.sa_flags = SA_ONSTACK | SA_RESTART;
  sigaction(SIGUSR1, &sa, nullptr);
  // Warm glibc's per-thread cache for both sizes before any signal.
  std::free(std::malloc(777));
  std::free(std::malloc(32));

  pthread_t self = pthread_self();
  pthread_t thread;
  pthread_create(&thread, nullptr, sender, &self);
  while (g_handled.load(std::memory_order_relaxed) < g_signals) {
    void* p = std::malloc(32);
    keep(p);
    std::free(p);
    for (long i = 0; i < g_spin; ++i) asm volatile("");
  }
  pthread_join(thread, nullptr);
  std::printf("handled=%d altstack=%p-%p\n", g_handled.load(), alt,
              static_cast<char*>(alt) + kAltStackBytes);
  return 0;
}
