// hp_attach_loop [FIFO]: a program for `sprof record --heap -p` to attach to while it runs. Before
// anything else it allocates one block from early_site (allocated before any attach, freed at
// the end: a free sprof must ignore). A worker thread then calls attach_site, which allocates
// and frees one 3000-byte block, in a loop until main reads a line (or EOF) on stdin, or from
// FIFO when given (for tests whose targets have no stdin); main blocks in open() or read()
// meanwhile, so an attach interrupts a sleeping syscall. It prints
// "early=<address>" at the start. At the end it prints
// "attach_site calls=N", frees the early block and exits 0.
#include <fcntl.h>
#include <pthread.h>
#include <time.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "heap_target.hpp"

namespace {

constexpr uint64_t kBlock = 3000;
volatile bool g_stop = false;
uint64_t g_calls = 0;

}  // namespace

extern "C" {

__attribute__((noinline)) void* early_site() {
  void* p = std::malloc(12345);
  keep(p);
  return p;
}

__attribute__((noinline)) void attach_site() {
  void* p = std::malloc(kBlock);
  keep(p);
  std::free(p);
}

}  // extern "C"

namespace {

void* worker(void* /*unused*/) {
  const timespec pause{0, 200 * 1000};  // 0.2 ms: a few thousand calls a second
  while (!g_stop) {
    attach_site();
    ++g_calls;
    nanosleep(&pause, nullptr);
  }
  return nullptr;
}

}  // namespace

int main(int argc, char** argv) {
  void* early = early_site();
  print_identity();
  std::printf("early=%p\n", early);
  pthread_t thread;
  if (pthread_create(&thread, nullptr, worker, nullptr) != 0) return 1;
  std::printf("ready\n");
  std::fflush(stdout);
  const int input = argc > 1 ? open(argv[1], O_RDONLY | O_CLOEXEC) : STDIN_FILENO;
  char c = 0;
  while (input >= 0 && read(input, &c, 1) == 1 && c != '\n') {
  }
  g_stop = true;
  pthread_join(thread, nullptr);
  std::printf("attach_site calls=%llu\n", static_cast<unsigned long long>(g_calls));
  std::free(early);
  return 0;
}
