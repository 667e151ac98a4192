// A tracepoint's id (perf_event_attr.config for PERF_TYPE_TRACEPOINT) is published only in
// tracefs, and many machines do not mount tracefs: minimal VMs (Firecracker, CI runners),
// containers, systemd-less images. There root still may mount it, as trace-cmd and perf do.
// sprof does so in a mount namespace of its own, in a child process: the id is read there and the
// mount ends with the child, so the machine's mount table never changes and no other program
// races with sprof over a mount point. The id is the kernel's, the same in every namespace, and
// the perf event opened with it needs no tracefs afterwards.
#include <fcntl.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdlib>
#include <string>

#include "perf/perf_event.hpp"
#include "sprof/core/log.hpp"

namespace sprof::recorder::perf {

namespace {

constexpr const char* kTracefsMountPoint = "/sys/kernel/tracing";

// Runs in the forked child of a possibly multi-threaded sprof: system calls only, no allocation.
// Writes the bytes of `id_path` (made by the parent, inside the mount point) to `out_fd`; the
// exit status says which step failed.
[[noreturn]] void read_id_in_private_tracefs(const char* id_path, int out_fd) {
  if (::unshare(CLONE_NEWNS) != 0) ::_exit(2);
  // Mounts made here must not propagate back to the parent's namespace (a shared "/" would).
  if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) ::_exit(3);
  if (::mount("nodev", kTracefsMountPoint, "tracefs", MS_NOSUID | MS_NODEV | MS_NOEXEC, nullptr) !=
      0) {
    ::_exit(4);
  }
  const int fd = ::open(id_path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) ::_exit(5);
  std::array<char, 32> buf{};
  const ssize_t got = ::read(fd, buf.data(), buf.size());
  if (got <= 0 || ::write(out_fd, buf.data(), static_cast<size_t>(got)) != got) ::_exit(6);
  ::_exit(0);
}

}  // namespace

std::optional<long> tracepoint_id_from_private_tracefs(const char* relative_path) {
  if (::geteuid() != 0) return std::nullopt;  // mounting needs CAP_SYS_ADMIN: root's, in practice
  std::array<int, 2> pipe_fds{};
  const std::string id_path = std::string(kTracefsMountPoint) + "/" + relative_path;
  if (::pipe2(pipe_fds.data(), O_CLOEXEC) != 0) return std::nullopt;
  const pid_t child = ::fork();
  if (child == 0) {
    ::close(pipe_fds[0]);
    read_id_in_private_tracefs(id_path.c_str(), pipe_fds[1]);
  }
  ::close(pipe_fds[1]);
  std::string text;
  if (child > 0) {
    std::array<char, 32> buf{};
    ssize_t got = 0;
    while ((got = ::read(pipe_fds[0], buf.data(), buf.size())) > 0 || (got < 0 && errno == EINTR)) {
      if (got > 0) text.append(buf.data(), static_cast<size_t>(got));
    }
  }
  ::close(pipe_fds[0]);
  if (child < 0) return std::nullopt;
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    log::info("perf: tracefs is not mounted and could not be mounted privately (step " +
              std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) + ")");
    return std::nullopt;
  }
  char* end = nullptr;
  const long id = std::strtol(text.c_str(), &end, 10);
  if (end == text.c_str() || id < 0) return std::nullopt;
  log::info(std::string("perf: ") + relative_path + " read from a private tracefs mount (" +
            std::to_string(id) + ")");
  return id;
}

}  // namespace sprof::recorder::perf
