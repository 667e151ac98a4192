#include "write_signal_guard.hpp"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstring>

#include "sprof/core/replacing_file.hpp"

namespace sprof::cli {

namespace {

constexpr int kHandledSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
std::atomic<int> g_requests{0};

const char* signal_name(int sig) {
  switch (sig) {
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    case SIGHUP: return "SIGHUP";
    case SIGQUIT: return "SIGQUIT";
    default: return "a signal";
  }
}

void say(const char* text) { (void)!::write(STDERR_FILENO, text, std::strlen(text)); }

void on_signal(int sig) {
  if (g_requests.fetch_add(1) == 0) {
    say("sprof: writing the profile; press Ctrl-C again to abandon\n");
    return;
  }
  ReplacingFile::remove_temporary_files_in_signal_handler();
  say("sprof: abandoned writing the profile (");
  say(signal_name(sig));
  say(" twice); the profile was not written\n");
  ::_exit(128 + sig);
}

}  // namespace

WriteSignalGuard::WriteSignalGuard() {
  g_requests.store(0);
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sa.sa_flags = SA_RESTART;  // the writer's system calls carry on after the first signal
  sigemptyset(&sa.sa_mask);
  for (int sig : kHandledSignals) sigaddset(&sa.sa_mask, sig);  // one handler at a time
  for (int sig : kHandledSignals) sigaction(sig, &sa, nullptr);
}

WriteSignalGuard::~WriteSignalGuard() {
  for (int sig : kHandledSignals) signal(sig, SIG_DFL);
}

}  // namespace sprof::cli
