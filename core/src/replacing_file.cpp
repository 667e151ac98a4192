#include "sprof/core/replacing_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstring>
#include <utility>

namespace sprof {

namespace {

// Tries a few names: another process (or thread) may have taken one.
constexpr int kNameAttempts = 64;

Error with_code(Error e) {
  if (e.sys_errno == ENOENT || e.sys_errno == ENOTDIR) e.code = Errc::kNotFound;
  if (e.sys_errno == EACCES || e.sys_errno == EPERM || e.sys_errno == EROFS) {
    e.code = Errc::kPermissionDenied;
  }
  if (e.code == Errc::kInternal) e.code = Errc::kIo;
  return e;
}

// "<dir>/.<name>.<pid>-<n>.tmp": hidden, in the target's directory so that rename(2) stays on
// one file system, and recognisably sprof's if a crash leaves one behind.
std::string temp_name(const std::string& path, unsigned attempt) {
  static std::atomic<unsigned> counter{0};
  const auto slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "" : path.substr(0, slash + 1);
  const std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  return dir + "." + name + "." + std::to_string(::getpid()) + "-" +
         std::to_string(counter.fetch_add(1) + attempt) + ".tmp";
}

// The temporary files being written, where a signal handler can read them: fixed slots of
// plain bytes (a handler may not allocate or take locks). A slot's path is complete before
// `ready` is set and is not touched again until `ready` is cleared. sprof writes one file at a
// time; a file that finds every slot taken is written as usual, only not removed by a handler.
struct SignalSlot {
  std::atomic<bool> taken{false};
  std::atomic<bool> ready{false};
  char path[PATH_MAX];
};
constexpr int kSignalSlots = 4;
SignalSlot g_signal_slots[kSignalSlots];

int take_signal_slot(const std::string& temp_path) {
  if (temp_path.size() >= PATH_MAX) return -1;
  for (int i = 0; i < kSignalSlots; ++i) {
    SignalSlot& slot = g_signal_slots[i];
    if (slot.taken.exchange(true)) continue;
    std::memcpy(slot.path, temp_path.c_str(), temp_path.size() + 1);
    slot.ready.store(true, std::memory_order_release);
    return i;
  }
  return -1;
}

void release_signal_slot(int i) {
  if (i < 0) return;
  g_signal_slots[i].ready.store(false, std::memory_order_release);
  g_signal_slots[i].taken.store(false);
}

}  // namespace

ReplacingFile::ReplacingFile(std::string path, std::string temp_path, UniqueFd fd)
    : path_(std::move(path)),
      temp_path_(std::move(temp_path)),
      fd_(std::move(fd)),
      signal_slot_(take_signal_slot(temp_path_)) {}

ReplacingFile::ReplacingFile(ReplacingFile&& other) noexcept
    : path_(std::move(other.path_)),
      temp_path_(std::exchange(other.temp_path_, {})),
      fd_(std::move(other.fd_)),
      signal_slot_(std::exchange(other.signal_slot_, -1)) {}

ReplacingFile& ReplacingFile::operator=(ReplacingFile&& other) noexcept {
  if (this != &other) {
    discard();
    path_ = std::move(other.path_);
    temp_path_ = std::exchange(other.temp_path_, {});
    fd_ = std::move(other.fd_);
    signal_slot_ = std::exchange(other.signal_slot_, -1);
  }
  return *this;
}

ReplacingFile::~ReplacingFile() { discard(); }

void ReplacingFile::discard() {
  fd_.reset();
  if (!temp_path_.empty()) ::unlink(temp_path_.c_str());
  temp_path_.clear();
  release_signal_slot(std::exchange(signal_slot_, -1));
}

void ReplacingFile::remove_temporary_files_in_signal_handler() {
  for (SignalSlot& slot : g_signal_slots) {
    if (slot.ready.load(std::memory_order_acquire)) ::unlink(slot.path);
  }
}

Result<ReplacingFile> ReplacingFile::create(std::string path, mode_t mode) {
  if (path.empty() || path.back() == '/') {
    return fail(Errc::kInvalidArgument, "'" + path + "' names a directory, not a file");
  }
  for (unsigned attempt = 0; attempt < kNameAttempts; ++attempt) {
    std::string temp = temp_name(path, attempt);
    UniqueFd fd(::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode));
    if (fd.valid()) return ReplacingFile(std::move(path), std::move(temp), std::move(fd));
    if (errno != EEXIST) {
      return with_code(Error::from_errno("create a temporary file beside " + path));
    }
  }
  return fail(Errc::kIo, "cannot create a temporary file beside " + path);
}

Result<ReplacingFile> ReplacingFile::reserve(std::string path, mode_t mode) {
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
    return fail(Errc::kInvalidArgument, "'" + path + "' is a directory, not a file");
  }
  return create(std::move(path), mode);
}

Result<void> ReplacingFile::check_target(const std::string& path) {
  SPROF_TRY(ReplacingFile probe, reserve(path));
  (void)probe;  // removed when it goes out of scope: the target is untouched
  return ok();
}

Result<void> ReplacingFile::write(std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd_.get(), bytes.data(), bytes.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return with_code(Error::from_errno("write " + path_));
    }
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return ok();
}

Result<void> ReplacingFile::commit() {
  if (temp_path_.empty()) return fail(Errc::kInternal, path_ + ": already committed");
  auto failed = [&](const char* what) {
    Error e = with_code(Error::from_errno(std::string(what) + " " + path_));
    discard();
    return e;
  };
  // Synced before the rename: otherwise a crash could leave the new name with no data.
  if (::fsync(fd_.get()) != 0) return failed("fsync");
  if (::close(fd_.release()) != 0) return failed("close");
  if (::rename(temp_path_.c_str(), path_.c_str()) != 0) return failed("rename over");
  temp_path_.clear();
  release_signal_slot(std::exchange(signal_slot_, -1));
  return ok();
}

}  // namespace sprof
