// it_attach: runs until killed, for `sprof record -p`. A thread named "spinner" spins in
// `attach_spin`; a thread named "spawner" starts a short-lived thread "late-N" every 50 ms (so
// some start after sprof attached); the main thread sleeps. Prints "ready" once every long-lived
// thread has its name.
#include <pthread.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <string>
#include <thread>

#include "../integration/spin.hpp"

namespace {

std::atomic<unsigned long> g_sink{0};
std::atomic<int> g_named{0};

__attribute__((noinline)) void attach_spin() {
  for (;;) g_sink += spin_for_seconds(0.01);
}

__attribute__((noinline)) void late_work() { g_sink += spin_for_seconds(0.005); }

void spawn_late_threads() {
  for (int n = 0;; ++n) {
    std::thread late([n] {
      pthread_setname_np(pthread_self(), ("late-" + std::to_string(n)).c_str());
      late_work();
    });
    late.join();
    ::usleep(50000);
  }
}

}  // namespace

int main() {
  std::thread spinner([] {
    pthread_setname_np(pthread_self(), "spinner");
    ++g_named;
    attach_spin();
  });
  std::thread spawner([] {
    pthread_setname_np(pthread_self(), "spawner");
    ++g_named;
    spawn_late_threads();
  });
  while (g_named.load() < 2) ::usleep(1000);
  std::printf("ready\n");
  std::fflush(stdout);
  for (;;) ::pause();
}
