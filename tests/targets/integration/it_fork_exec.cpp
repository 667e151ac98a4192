// it_fork_exec PROGRAM ARGS...: spins a little, then forks; the child execs PROGRAM ARGS...
// while the parent spins in `parent_work` and waits for it. Exits with the child's status.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>

#include "spin.hpp"

namespace {

__attribute__((noinline)) unsigned long parent_work(double seconds) {
  return spin_for_seconds(seconds);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: it_fork_exec PROGRAM ARGS...\n");
    return 2;
  }
  unsigned long x = parent_work(0.2);
  const pid_t pid = fork();
  if (pid == 0) {
    execv(argv[1], argv + 1);
    _exit(127);
  }
  x += parent_work(0.3);
  int status = 0;
  waitpid(pid, &status, 0);
  std::printf("it_fork_exec done %lu\n", x & 1);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
