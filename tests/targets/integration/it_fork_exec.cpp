// it_fork_exec PROGRAM ARGS...: spins a little, then forks; the child execs PROGRAM ARGS...
// while the parent spins in `parent_work` and waits for it. Exits with the child's status.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <ctime>

namespace {

__attribute__((noinline)) unsigned long parent_work(double seconds) {
  timespec start{}, now{};
  clock_gettime(CLOCK_MONOTONIC, &start);
  unsigned long x = 1;
  do {
    for (int i = 0; i < 100000; ++i) x = x * 6364136223846793005UL + 1;
    clock_gettime(CLOCK_MONOTONIC, &now);
  } while (static_cast<double>(now.tv_sec - start.tv_sec) +
               static_cast<double>(now.tv_nsec - start.tv_nsec) * 1e-9 <
           seconds);
  return x;
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
