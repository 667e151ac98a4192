// A program whose counts `sprof stat` tests know: a thread named "st_sleeper" sleeps N times
// (each nanosleep a voluntary context switch), the main thread touches M fresh pages (each a
// minor page fault), and both print what the kernel's own accounting says (getrusage), so the
// test compares sprof's counters with it. Exits with the code given as the third argument.
//
// st_known_counts SLEEPS PAGES [EXIT_CODE]
// st_known_counts --forever   (sleeps 1 ms at a time until killed: for -p)
#include <pthread.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

namespace {

void sleep_once() {
  timespec ts{0, 1000000};  // 1 ms
  nanosleep(&ts, nullptr);
}

void print_usage(const char* who, int who_flag) {
  rusage usage{};
  getrusage(who_flag, &usage);
  std::printf("%s voluntary_switches=%ld minor_faults=%ld\n", who, usage.ru_nvcsw, usage.ru_minflt);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 2 && std::strcmp(argv[1], "--forever") == 0) {
    std::printf("ready\n");
    std::fflush(stdout);
    for (;;) sleep_once();
  }
  if (argc < 3) {
    std::fprintf(stderr, "usage: st_known_counts SLEEPS PAGES [EXIT_CODE]\n");
    return 2;
  }
  // Switches before main (the launcher holds the new process until it execs) are the kernel's
  // but not the program's: the test compares the ones from here on.
  rusage at_main{};
  getrusage(RUSAGE_SELF, &at_main);
  const long sleeps = std::atol(argv[1]);
  const long pages = std::atol(argv[2]);
  const int exit_code = argc > 3 ? std::atoi(argv[3]) : 0;

  std::thread sleeper([sleeps] {
    pthread_setname_np(pthread_self(), "st_sleeper");
    for (long i = 0; i < sleeps; ++i) sleep_once();
    print_usage("sleeper", RUSAGE_THREAD);
  });
  sleeper.join();

  const long page = sysconf(_SC_PAGESIZE);
  rusage before{};
  getrusage(RUSAGE_THREAD, &before);
  auto* mem =
      static_cast<volatile char*>(mmap(nullptr, static_cast<size_t>(pages * page),
                                       PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  for (long i = 0; i < pages; ++i) mem[i * page] = 1;
  rusage after{};
  getrusage(RUSAGE_THREAD, &after);
  std::printf("toucher faults_while_touching=%ld\n", after.ru_minflt - before.ru_minflt);
  print_usage("main", RUSAGE_THREAD);
  print_usage("process", RUSAGE_SELF);
  rusage at_end{};
  getrusage(RUSAGE_SELF, &at_end);
  std::printf("since_main voluntary_switches=%ld\n", at_end.ru_nvcsw - at_main.ru_nvcsw);
  std::fflush(stdout);
  return exit_code;
}
