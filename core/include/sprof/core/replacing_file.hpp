// sprof/core/replacing_file.hpp
//
// Writes a file so that its path shows either the old content or the complete new one, never a
// part: the bytes go to a temporary file in the target's directory (same file system), which is
// synced and renamed over the target only by `commit`. Any failure before that, or dropping the
// object, removes the temporary file and leaves the target as it was, so a full disk or a write
// error never costs the user an existing profile.
//
// A symlink at the target is replaced by the file, not written through. The new file's mode is
// `mode` less the umask, as open(2) would make it.
#pragma once

#include <sys/types.h>

#include <string>
#include <string_view>

#include "sprof/core/result.hpp"
#include "sprof/core/unique_fd.hpp"

namespace sprof {

class ReplacingFile {
 public:
  // Creates the temporary file beside `path`. Errors: kNotFound (no such directory),
  // kPermissionDenied, kIo.
  static Result<ReplacingFile> create(std::string path, mode_t mode = 0644);
  // `create`, for content that takes long to produce (a recording): first refuses a `path` that
  // is a directory. The temporary file is kept open from now on, so writing the result later
  // needs no new descriptor, which a recording that used up its limit (ulimit -n) would not get.
  // Errors as `create`, and kInvalidArgument for a directory.
  static Result<ReplacingFile> reserve(std::string path, mode_t mode = 0644);
  // Whether `path` could be written later, checked now, before the work that produces the
  // content: what `reserve` checks, with the temporary file removed again. Errors as `reserve`.
  static Result<void> check_target(const std::string& path);

  ReplacingFile(ReplacingFile&& other) noexcept;
  ReplacingFile& operator=(ReplacingFile&& other) noexcept;
  ReplacingFile(const ReplacingFile&) = delete;
  ReplacingFile& operator=(const ReplacingFile&) = delete;
  ~ReplacingFile();

  // The temporary file, open for writing.
  int fd() const { return fd_.get(); }
  const std::string& path() const { return path_; }

  // Writes all of `bytes` to the temporary file ("write <path>: <errno text>" on failure).
  Result<void> write(std::string_view bytes);

  // Syncs and closes the temporary file and renames it over the target. On error the temporary
  // file is removed and the target is untouched.
  Result<void> commit();

  // Removes the temporary file of every ReplacingFile of this process that is neither committed
  // nor discarded yet. Async-signal-safe (unlink(2) only): for a signal handler that ends sprof
  // while a file is being written, so that no temporary file is left behind.
  static void remove_temporary_files_in_signal_handler();

 private:
  ReplacingFile(std::string path, std::string temp_path, UniqueFd fd);
  void discard();

  std::string path_;
  std::string temp_path_;  // empty once committed or discarded
  UniqueFd fd_;
  int signal_slot_ = -1;  // where a signal handler finds temp_path_ (replacing_file.cpp)
};

}  // namespace sprof
