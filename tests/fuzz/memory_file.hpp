// tests/fuzz/memory_file.hpp
//
// The fuzz input as a file, for the APIs that take a path.
//   MemoryFile      a memfd, reachable as /proc/self/fd/N: no fuzz iteration touches the disk.
//   ScratchDirFile  a named file in a private directory (on /dev/shm when there is one), for
//                   readers that also look beside the file (the symbolicator follows an ELF
//                   file's .gnu_debuglink there; beside /proc/self/fd/N it would find the
//                   fuzzer's own descriptors).
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <span>
#include <string>

namespace sprof::fuzz {

class MemoryFile {
 public:
  explicit MemoryFile(std::span<const uint8_t> bytes)
      : fd_(::memfd_create("sprof-fuzz", MFD_CLOEXEC)) {
    if (fd_ < 0) std::abort();  // the harness cannot work without it; not a finding in sprof
    size_t done = 0;
    while (done < bytes.size()) {
      const ssize_t n = ::write(fd_, bytes.data() + done, bytes.size() - done);
      if (n <= 0) std::abort();
      done += static_cast<size_t>(n);
    }
    path_ = "/proc/self/fd/" + std::to_string(fd_);
  }
  ~MemoryFile() { ::close(fd_); }
  MemoryFile(const MemoryFile&) = delete;
  MemoryFile& operator=(const MemoryFile&) = delete;

  const std::string& path() const { return path_; }

 private:
  int fd_;
  std::string path_;
};

class ScratchDirFile {
 public:
  // Writes `bytes` to <scratch dir>/`name`, replacing the previous input.
  ScratchDirFile(const std::string& name, std::span<const uint8_t> bytes)
      : path_(scratch_dir() + "/" + name) {
    FILE* f = std::fopen(path_.c_str(), "wb");
    if (f == nullptr) std::abort();
    if (!bytes.empty() && std::fwrite(bytes.data(), 1, bytes.size(), f) != bytes.size()) {
      std::abort();
    }
    std::fclose(f);
  }
  ScratchDirFile(const ScratchDirFile&) = delete;
  ScratchDirFile& operator=(const ScratchDirFile&) = delete;

  const std::string& path() const { return path_; }

 private:
  // Created on first use, removed when the process exits normally.
  static const std::string& scratch_dir() {
    static const std::string dir = [] {
      const std::string base = std::filesystem::is_directory("/dev/shm") ? "/dev/shm" : "/tmp";
      std::string pattern = base + "/sprof-fuzz-XXXXXX";
      if (::mkdtemp(pattern.data()) == nullptr) std::abort();
      return pattern;
    }();
    static const struct Remover {
      ~Remover() {
        std::error_code ec;
        std::filesystem::remove_all(dir, ec);
      }
    } remover;
    return dir;
  }

  std::string path_;
};

}  // namespace sprof::fuzz
