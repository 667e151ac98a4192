// sprof/perfdata/byte_source.hpp
//
// Where a perf.data file's bytes come from: the file on disk (opened and read through core's
// untrusted-file helpers, the only system calls the reader makes) or memory (tests, the fuzzer).
// The reader asks for ranges by offset and never trusts an offset or size the file states: every
// range is checked against `size()` first, and no allocation is larger than what the caller
// bounded (a perf.data file can be gigabytes; its data section is read in chunks).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "sprof/core/result.hpp"
#include "sprof/core/untrusted_file.hpp"

namespace sprof::perfdata {

class ByteSource {
 public:
  virtual ~ByteSource() = default;
  virtual uint64_t size() const = 0;
  // Fills `out` from `offset`; Errc::kMalformed when the range passes the end.
  virtual Result<void> read(uint64_t offset, std::span<uint8_t> out) = 0;
  // When the file was last written (wall-clock ms since the epoch), if known: perf writes the
  // header last, so this is about when the recording ended.
  virtual std::optional<double> modified_wall_ms() const { return std::nullopt; }
  // What to call the bytes in messages ("perf.data", a path).
  virtual std::string name() const = 0;
  // All `size()` bytes in memory, for readers that look at them in place instead of copying;
  // nullptr when they must be `read` (a file: it may change under the reader).
  virtual const uint8_t* data() const { return nullptr; }
};

class MemoryBytes final : public ByteSource {
 public:
  explicit MemoryBytes(std::span<const uint8_t> bytes, std::string name = "perf.data",
                       std::optional<double> modified_wall_ms = std::nullopt)
      : bytes_(bytes), name_(std::move(name)), modified_wall_ms_(modified_wall_ms) {}
  uint64_t size() const override { return bytes_.size(); }
  Result<void> read(uint64_t offset, std::span<uint8_t> out) override;
  std::optional<double> modified_wall_ms() const override { return modified_wall_ms_; }
  std::string name() const override { return name_; }
  const uint8_t* data() const override { return bytes_.data(); }

 private:
  std::span<const uint8_t> bytes_;
  std::string name_;
  std::optional<double> modified_wall_ms_;
};

class FileBytes final : public ByteSource {
 public:
  // A regular file (no FIFO, device or directory; sprof/core/untrusted_file.hpp). The user named
  // it on the command line, so a symlink to it is followed. It is read with pread, not mapped:
  // a file that shrinks while it is read (another program rewriting it) then gives a read error
  // (Errc::kMalformed, "the file ends at byte N") instead of a SIGBUS that would kill sprof.
  static Result<FileBytes> open(const std::string& path);
  uint64_t size() const override { return file_.size_bytes; }
  Result<void> read(uint64_t offset, std::span<uint8_t> out) override;
  std::optional<double> modified_wall_ms() const override { return file_.modified_wall_ms; }
  std::string name() const override { return path_; }

 private:
  FileBytes(UntrustedFile file, std::string path)
      : file_(std::move(file)), path_(std::move(path)) {}
  UntrustedFile file_;
  std::string path_;
};

// `size` bytes at `offset`, refused (Errc::kMalformed) when the range is not inside the source
// and (Errc::kTooLarge) when `size` exceeds `max_bytes`. `what` names the range in messages.
Result<std::vector<uint8_t>> read_range(ByteSource& source, uint64_t offset, uint64_t size,
                                        uint64_t max_bytes, const std::string& what);

// True when [offset, offset + size) lies inside [0, limit) (no overflow).
inline bool range_within(uint64_t offset, uint64_t size, uint64_t limit) {
  return offset <= limit && size <= limit - offset;
}

}  // namespace sprof::perfdata
