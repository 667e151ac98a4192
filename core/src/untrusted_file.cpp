#include "sprof/core/untrusted_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <utility>

#include "sprof/core/fd_io.hpp"

namespace sprof {

namespace {

const char* file_type_name(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  return "of an unknown type";
}

Error open_error(const std::string& path, Symlinks symlinks, int err) {
  // O_NOFOLLOW reports a symlink in the last component as ELOOP.
  if (err == ELOOP && symlinks == Symlinks::kRefuse) {
    return Error{Errc::kPermissionDenied,
                 path + ": is a symbolic link; not followed (it could point anywhere)", err};
  }
  Error e = Error::from_errno("open(" + path + ")", err);
  if (err == ENOENT || err == ENOTDIR) e.code = Errc::kNotFound;
  if (err == EACCES || err == EPERM) e.code = Errc::kPermissionDenied;
  return e;
}

}  // namespace

Result<UntrustedFile> open_untrusted_file(const std::string& path, Symlinks symlinks) {
  int flags = O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY;
  if (symlinks == Symlinks::kRefuse) flags |= O_NOFOLLOW;
  UniqueFd fd(::open(path.c_str(), flags));
  if (!fd.valid()) return open_error(path, symlinks, errno);
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return Error::from_errno("fstat(" + path + ")");
  if (!S_ISREG(st.st_mode)) {
    return fail(Errc::kUnsupported,
                path + ": is " + file_type_name(st.st_mode) + ", not a regular file; not read");
  }
  const double mtime_ms =
      static_cast<double>(st.st_mtim.tv_sec) * 1e3 + static_cast<double>(st.st_mtim.tv_nsec) / 1e6;
  return UntrustedFile{std::move(fd), static_cast<uint64_t>(st.st_size), mtime_ms};
}

Result<void> read_untrusted_at(const UntrustedFile& file, uint64_t offset, std::span<uint8_t> out) {
  return read_exactly_at(file.fd.get(), offset, out);
}

Result<std::string> read_small_file(const std::string& path, size_t max_bytes, Symlinks symlinks) {
  SPROF_TRY(UntrustedFile file, open_untrusted_file(path, symlinks));
  auto too_large = [&] {
    return fail(Errc::kTooLarge, path + ": larger than " + std::to_string(max_bytes) + " bytes");
  };
  if (file.size_bytes > max_bytes) return too_large();
  std::string text;
  text.reserve(static_cast<size_t>(file.size_bytes));
  char buffer[65536];
  for (;;) {
    const ssize_t n = ::read(file.fd.get(), buffer, sizeof buffer);
    if (n < 0) {
      if (errno == EINTR) continue;
      Error e = Error::from_errno("read(" + path + ")");
      e.code = Errc::kIo;
      return e;
    }
    if (n == 0) break;
    // The file may have grown since fstat (a JIT still writing), and /proc files report 0.
    if (static_cast<size_t>(n) > max_bytes - text.size()) return too_large();
    text.append(buffer, static_cast<size_t>(n));
  }
  return text;
}

}  // namespace sprof
