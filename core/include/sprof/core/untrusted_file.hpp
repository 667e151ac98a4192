// sprof/core/untrusted_file.hpp
//
// Opening files whose path someone else chose: a profiled program (perf maps, jitdumps, marker
// files, the modules it mapped) or a profile (the libs and source files it names, the profile
// given to `sprof load`). Such a path may name a FIFO, whose blocking open(2) waits for a writer
// forever; a device; a directory; or, in a shared directory like /tmp, a symlink another user
// planted. Every such read in sprof goes through these functions, which
// - open with O_NONBLOCK, so that opening a FIFO or device returns at once,
// - accept regular files only (checked with fstat on the opened descriptor, so the check and the
//   read are about the same file),
// - refuse a symlink in the last path component unless the caller follows symlinks on purpose
//   (a module's build-id link in /usr/lib/debug is one; a perf map in /tmp never is),
// - and bound the bytes read.
// Errors name the path and the reason: kNotFound (missing), kPermissionDenied (unreadable, or a
// refused symlink), kUnsupported (not a regular file), kTooLarge (above the caller's limit),
// kIo (the read failed).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "sprof/core/result.hpp"
#include "sprof/core/unique_fd.hpp"

namespace sprof {

enum class Symlinks { kRefuse, kFollow };

struct UntrustedFile {
  UniqueFd fd;                  // O_RDONLY | O_CLOEXEC (| O_NONBLOCK, which a regular file ignores)
  uint64_t size_bytes = 0;      // st_size when opened; 0 for /proc files, which have no size
  double modified_wall_ms = 0;  // st_mtim when opened, in ms since the Unix epoch
};

// Opens a regular file for reading without blocking.
Result<UntrustedFile> open_untrusted_file(const std::string& path,
                                          Symlinks symlinks = Symlinks::kRefuse);

// Reads exactly `out.size()` bytes at `offset` (pread, so several readers may share the file).
// kIo when the read fails, kMalformed when the file ends first (it shrank, or a caller trusted an
// offset the file does not have).
Result<void> read_untrusted_at(const UntrustedFile& file, uint64_t offset, std::span<uint8_t> out);

// Reads a whole regular file of at most `max_bytes` (refused from its size before reading when
// the size is known, and never more than `max_bytes + 1` bytes read otherwise).
Result<std::string> read_small_file(const std::string& path, size_t max_bytes,
                                    Symlinks symlinks = Symlinks::kRefuse);

}  // namespace sprof
