#include "signals.hpp"

#include <signal.h>

namespace sprof::cli {

namespace {

std::atomic<int> g_pending_signal{0};
std::atomic<int> g_stop_requests{0};
std::atomic<int> g_last_signal{0};
std::atomic<int> g_window_requests{0};
constexpr int kForwardedSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};

void on_signal(int sig, siginfo_t* info, void*) {
  g_last_signal.store(sig);
  g_stop_requests.fetch_add(1);
  // SI_USER/SI_QUEUE: sent by a process (kill, timeout, systemd) to sprof only. Anything else
  // (SI_KERNEL: the terminal) went to the whole foreground group, the command included.
  if (info && (info->si_code == SI_USER || info->si_code == SI_QUEUE)) {
    g_pending_signal.store(sig);
  }
}

void on_window_request(int) { g_window_requests.fetch_add(1); }

}  // namespace

RecordingSignalGuard::RecordingSignalGuard() {
  g_pending_signal.store(0);
  g_stop_requests.store(0);
  g_last_signal.store(0);
  struct sigaction sa {};
  sa.sa_sigaction = on_signal;
  sa.sa_flags = SA_SIGINFO;  // no SA_RESTART: poll() returns early with EINTR
  sigemptyset(&sa.sa_mask);
  for (int sig : kForwardedSignals) sigaction(sig, &sa, nullptr);
}

RecordingSignalGuard::~RecordingSignalGuard() {
  for (int sig : kForwardedSignals) signal(sig, SIG_DFL);
}

std::atomic<int>& RecordingSignalGuard::pending_signal() { return g_pending_signal; }

const std::atomic<int>& RecordingSignalGuard::stop_requests() const { return g_stop_requests; }

int RecordingSignalGuard::last_signal() const { return g_last_signal.load(); }

WindowRequestSignal::WindowRequestSignal() {
  g_window_requests.store(0);
  struct sigaction sa {};
  sa.sa_handler = on_window_request;
  // SA_RESTART spares the other threads' reads and writes (the writer's, the symbolicator's); the
  // recording thread's poll() returns at once all the same, since poll is never restarted
  // (signal(7)).
  sa.sa_flags = SA_RESTART;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGUSR2, &sa, nullptr);
}

WindowRequestSignal::~WindowRequestSignal() { signal(SIGUSR2, SIG_DFL); }

const std::atomic<int>& WindowRequestSignal::requests() const { return g_window_requests; }

}  // namespace sprof::cli
