// hp_fork_exec: allocates in parent_site, forks a child that allocates in fork_child_site (while
// a second thread of the parent keeps allocating, so fork happens mid-traffic), then forks and
// execs itself as "hp_fork_exec exec-child", which allocates in exec_child_site. Each process
// prints its identity; sizes are distinct per site (1111, 2222, 3333 bytes).
#include <pthread.h>
#include <sys/wait.h>

#include <atomic>
#include <cstdlib>
#include <cstring>

#include "heap_target.hpp"

extern "C" {

__attribute__((noinline)) void parent_site() {
  void* p = std::malloc(1111);
  keep(p);
  std::free(p);
}

__attribute__((noinline)) void fork_child_site() {
  void* p = std::malloc(2222);
  keep(p);
  std::free(p);
}

__attribute__((noinline)) void exec_child_site() {
  void* p = std::malloc(3333);
  keep(p);
  std::free(p);
}

}  // extern "C"

namespace {

std::atomic<bool> g_stop{false};

void* churn(void*) {
  while (!g_stop.load(std::memory_order_relaxed)) {
    void* p = std::malloc(48);
    keep(p);
    std::free(p);
  }
  return nullptr;
}

int wait_ok(pid_t pid) {
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

}  // namespace

int main(int argc, char** argv) {
  print_identity();
  if (argc > 1 && std::strcmp(argv[1], "exec-child") == 0) {
    exec_child_site();
    return 0;
  }
  parent_site();
  pthread_t thread;
  pthread_create(&thread, nullptr, churn, nullptr);
  const pid_t child = fork();
  if (child == 0) {
    print_identity();
    fork_child_site();
    _exit(0);
  }
  const bool forked_ok = wait_ok(child);
  g_stop = true;
  pthread_join(thread, nullptr);

  const pid_t execed = fork();
  if (execed == 0) {
    char arg[] = "exec-child";
    char* args[] = {argv[0], arg, nullptr};
    execv("/proc/self/exe", args);
    _exit(127);
  }
  const bool execed_ok = wait_ok(execed);
  std::printf("children ok=%d\n", forked_ok && execed_ok);
  return forked_ok && execed_ok ? 0 : 1;
}
