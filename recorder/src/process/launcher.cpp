#include "process/launcher.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string_view>
#include <utility>

namespace sprof::recorder {

namespace {

Result<std::pair<UniqueFd, UniqueFd>> make_cloexec_pipe(const char* purpose) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    return unexpected(Error::from_errno(std::string("pipe2(") + purpose + ")"));
  }
  return std::pair{UniqueFd(fds[0]), UniqueFd(fds[1])};
}

convert::ExitStatus decode_wait_status(int status) {
  convert::ExitStatus s;
  if (WIFSIGNALED(status)) {
    s.signaled = true;
    s.signal = WTERMSIG(status);
  } else {
    s.code = WEXITSTATUS(status);
  }
  return s;
}

// Runs in the forked child: only async-signal-safe calls until exec.
[[noreturn]] void child_main(int release_fd, int error_fd, int parent_fds[2], char* const* argv,
                             char* const* envp) {
  // The parent's pipe ends: holding the release write end would hide the parent's EOF.
  ::close(parent_fds[0]);
  ::close(parent_fds[1]);
  // Undo whatever the recorder set up (ignored SIGINT, a blocked mask for its signal handling)
  // so the program starts as it would from a shell.
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  for (int sig = 1; sig < NSIG; ++sig) {
    if (sig != SIGKILL && sig != SIGSTOP) ::sigaction(sig, &dfl, nullptr);
  }
  sigset_t none;
  ::sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);

  char go = 0;
  ssize_t n;
  do {
    n = ::read(release_fd, &go, 1);
  } while (n < 0 && errno == EINTR);
  // EOF: the recorder gave up on us before releasing (e.g. perf_event_open failed).
  if (n != 1) ::_exit(127);

  if (envp != nullptr) {
    ::execvpe(argv[0], argv, envp);
  } else {
    ::execvp(argv[0], argv);
  }
  const int err = errno;
  ssize_t w;
  do {
    w = ::write(error_fd, &err, sizeof err);
  } while (w < 0 && errno == EINTR);
  ::_exit(127);
}

// The environment for the child: the recorder's, with `overrides` replacing same-named entries.
// Points into `environ` and `overrides`, which must outlive the exec.
std::vector<char*> child_environment(const std::vector<std::string>& overrides) {
  std::vector<char*> env;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string_view entry(*e);
    const auto eq = entry.find('=');
    const std::string_view name = entry.substr(0, eq == std::string_view::npos ? 0 : eq + 1);
    bool replaced = false;
    for (const auto& o : overrides) replaced = replaced || (!name.empty() && o.starts_with(name));
    if (!replaced) env.push_back(*e);
  }
  for (const auto& o : overrides) env.push_back(const_cast<char*>(o.c_str()));
  env.push_back(nullptr);
  return env;
}

}  // namespace

Result<LaunchedChild> Launcher::spawn(const std::vector<std::string>& argv,
                                      const std::vector<std::string>& env_overrides) {
  if (argv.empty() || argv[0].empty()) {
    return fail(Errc::kInvalidArgument, "launch: no program given");
  }
  // Built before fork: the child must not allocate.
  std::vector<char*> c_argv;
  c_argv.reserve(argv.size() + 1);
  for (const auto& a : argv) c_argv.push_back(const_cast<char*>(a.c_str()));
  c_argv.push_back(nullptr);
  std::vector<char*> c_env;
  if (!env_overrides.empty()) c_env = child_environment(env_overrides);

  SPROF_TRY(auto release_pipe, make_cloexec_pipe("release"));
  SPROF_TRY(auto error_pipe, make_cloexec_pipe("exec error"));

  const pid_t pid = ::fork();
  if (pid < 0) return unexpected(Error::from_errno("fork(" + argv[0] + ")"));
  if (pid == 0) {
    int parent_fds[2] = {release_pipe.second.get(), error_pipe.first.get()};
    child_main(release_pipe.first.get(), error_pipe.second.get(), parent_fds, c_argv.data(),
               c_env.empty() ? nullptr : c_env.data());
  }

  // Parent keeps the release write end and the error read end; the child's ends are closed here
  // so EOF on the error pipe means the child's copy closed at exec.
  return LaunchedChild(pid, argv[0], std::move(release_pipe.second), std::move(error_pipe.first));
}

LaunchedChild::LaunchedChild(LaunchedChild&& o) noexcept
    : pid_(std::exchange(o.pid_, -1)),
      program_(std::move(o.program_)),
      release_fd_(std::move(o.release_fd_)),
      error_fd_(std::move(o.error_fd_)),
      pid_fd_(std::move(o.pid_fd_)),
      released_(o.released_),
      exit_status_(o.exit_status_) {}

LaunchedChild& LaunchedChild::operator=(LaunchedChild&& o) noexcept {
  if (this != &o) {
    reap_if_unreleased();
    pid_ = std::exchange(o.pid_, -1);
    program_ = std::move(o.program_);
    release_fd_ = std::move(o.release_fd_);
    error_fd_ = std::move(o.error_fd_);
    pid_fd_ = std::move(o.pid_fd_);
    released_ = o.released_;
    exit_status_ = o.exit_status_;
  }
  return *this;
}

LaunchedChild::~LaunchedChild() { reap_if_unreleased(); }

void LaunchedChild::reap_if_unreleased() {
  if (pid_ <= 0 || released_ || exit_status_) return;
  release_fd_.reset();  // EOF without the go byte: the child _exit(127)s without exec
  (void)wait_for_exit();
}

Result<void> LaunchedChild::release() {
  if (released_) return fail(Errc::kInternal, "launch: child already released");
  released_ = true;
  const char go = 1;
  ssize_t w;
  do {
    w = ::write(release_fd_.get(), &go, 1);
  } while (w < 0 && errno == EINTR);
  if (w != 1)
    return unexpected(Error::from_errno("write(release pipe of pid " + std::to_string(pid_) + ")"));
  release_fd_.reset();

  int exec_errno = 0;
  size_t got = 0;
  while (got < sizeof exec_errno) {
    const ssize_t n = ::read(error_fd_.get(), reinterpret_cast<char*>(&exec_errno) + got,
                             sizeof exec_errno - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<size_t>(n);
  }
  error_fd_.reset();
  if (got == 0) return ok();  // EOF: the pipe closed on exec

  (void)wait_for_exit();
  if (got != sizeof exec_errno) {
    return fail(Errc::kExecFailed, "cannot execute '" + program_ + "': child failed before exec");
  }
  return unexpected(Error{Errc::kExecFailed,
                          "cannot execute '" + program_ + "': " + std::strerror(exec_errno),
                          exec_errno});
}

Result<convert::ExitStatus> LaunchedChild::wait_for_exit() {
  if (exit_status_) return *exit_status_;
  int status = 0;
  for (;;) {
    const pid_t r = ::waitpid(pid_, &status, 0);
    if (r == pid_) break;
    if (r < 0 && errno == EINTR) continue;
    return unexpected(Error::from_errno("waitpid(" + std::to_string(pid_) + ")"));
  }
  exit_status_ = decode_wait_status(status);
  return *exit_status_;
}

Result<std::optional<convert::ExitStatus>> LaunchedChild::try_wait() {
  if (exit_status_) return std::optional<convert::ExitStatus>(*exit_status_);
  int status = 0;
  pid_t r;
  do {
    r = ::waitpid(pid_, &status, WNOHANG);
  } while (r < 0 && errno == EINTR);
  if (r < 0) return unexpected(Error::from_errno("waitpid(" + std::to_string(pid_) + ", WNOHANG)"));
  if (r == 0) return std::optional<convert::ExitStatus>();
  exit_status_ = decode_wait_status(status);
  return std::optional<convert::ExitStatus>(*exit_status_);
}

UniqueFd LaunchedChild::open_pidfd(pid_t pid) {
  const long fd = ::syscall(SYS_pidfd_open, pid, 0);
  if (fd < 0) return UniqueFd();
  // pidfd_open sets close-on-exec itself (pidfd_open(2)); no command sprof starts inherits it.
  return UniqueFd(static_cast<int>(fd));
}

Result<bool> LaunchedChild::has_exited() const {
  if (exit_status_) return true;
  siginfo_t info{};
  int r;
  do {
    r = ::waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOHANG | WNOWAIT);
  } while (r < 0 && errno == EINTR);
  if (r < 0) return unexpected(Error::from_errno("waitid(" + std::to_string(pid_) + ", WNOWAIT)"));
  return info.si_pid == pid_;  // 0 while the child runs (waitid(2))
}

Result<void> LaunchedChild::send_signal(int sig) {
  if (exit_status_ || pid_ <= 0) return ok();
  if (::kill(pid_, sig) != 0) {
    return unexpected(
        Error::from_errno("kill(" + std::to_string(pid_) + ", " + std::to_string(sig) + ")"));
  }
  return ok();
}

}  // namespace sprof::recorder
