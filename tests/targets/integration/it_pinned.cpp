// it_pinned THREADS SECONDS: THREADS threads named "pinned-0", ... each bound to CPU i (modulo
// the CPUs it may use) from its first instruction, spin for SECONDS of wall time and print
// "pinned-i cpu C tid T", so a per-CPU view knows which thread must have run on which CPU.
#include <pthread.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "spin.hpp"

namespace {

__attribute__((noinline)) unsigned long pinned_spin(double seconds) {
  return spin_for_seconds(seconds);
}

struct Worker {
  int index = 0;
  int cpu = 0;
  double seconds = 0;
};

void* run_worker(void* arg) {
  const auto* w = static_cast<const Worker*>(arg);
  pthread_setname_np(pthread_self(), ("pinned-" + std::to_string(w->index)).c_str());
  const unsigned long x = pinned_spin(w->seconds);
  std::printf("pinned-%d cpu %d tid %ld %lu\n", w->index, w->cpu, syscall(SYS_gettid), x & 1);
  return nullptr;
}

}  // namespace

int main(int argc, char** argv) {
  const int threads = argc > 1 ? std::atoi(argv[1]) : 2;
  const double seconds = argc > 2 ? std::atof(argv[2]) : 1.0;
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  sched_getaffinity(0, sizeof allowed, &allowed);
  std::vector<int> cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c) {
    if (CPU_ISSET(c, &allowed)) cpus.push_back(c);
  }
  std::vector<Worker> workers(static_cast<size_t>(threads));
  std::vector<pthread_t> ids(workers.size());
  for (size_t i = 0; i < workers.size(); ++i) {
    workers[i] = Worker{static_cast<int>(i), cpus[i % cpus.size()], seconds};
    // Bound before it starts: the thread never runs anywhere else.
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(workers[i].cpu, &one);
    pthread_attr_setaffinity_np(&attr, sizeof one, &one);
    if (pthread_create(&ids[i], &attr, run_worker, &workers[i]) != 0) return 1;
    pthread_attr_destroy(&attr);
  }
  for (pthread_t id : ids) pthread_join(id, nullptr);
  return 0;
}
