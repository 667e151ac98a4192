#include "sprof/profile/sample_spill.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <vector>

namespace sprof::profile {

std::shared_ptr<SampleSpill> SampleSpill::open_temporary(std::string directory) {
  std::vector<std::string> candidates;
  if (!directory.empty()) {
    candidates.push_back(std::move(directory));
  } else {
    if (const char* tmp = std::getenv("TMPDIR"); tmp != nullptr && *tmp != '\0') {
      candidates.emplace_back(tmp);
    }
    // /var/tmp before /tmp: /tmp is often a tmpfs, which would keep the samples in memory.
    candidates.emplace_back("/var/tmp");
    candidates.emplace_back("/tmp");
  }
  for (const std::string& dir : candidates) {
    // O_TMPFILE: a file with no name, so nothing is left behind and no other user can open it.
    const int fd = ::open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd >= 0) return std::shared_ptr<SampleSpill>(new SampleSpill(fd));
  }
  return nullptr;
}

SampleSpill::SampleSpill(int fd) : fd_(fd) {
  static std::atomic<uint64_t> next_id{1};
  id_ = next_id.fetch_add(1, std::memory_order_relaxed);
}

SampleSpill::~SampleSpill() { ::close(fd_); }

std::optional<uint64_t> SampleSpill::append(std::span<const std::byte> bytes) {
  // One writer (the converting thread) at a time; the offset is reserved first all the same.
  const uint64_t offset = end_.fetch_add(bytes.size(), std::memory_order_relaxed);
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::pwrite(fd_, bytes.data() + done, bytes.size() - done,
                               static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return std::nullopt;  // the reserved range stays a hole nobody reads
    done += static_cast<size_t>(n);
  }
  return offset;
}

bool SampleSpill::read(uint64_t offset, std::span<std::byte> out) const {
  size_t done = 0;
  while (done < out.size()) {
    const ssize_t n =
        ::pread(fd_, out.data() + done, out.size() - done, static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

}  // namespace sprof::profile
