#include "sprof/profile/sample_spill.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <utility>
#include <vector>

#include "sprof/core/fd_io.hpp"

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
    if (fd >= 0) return std::shared_ptr<SampleSpill>(new SampleSpill(UniqueFd(fd)));
  }
  return nullptr;
}

SampleSpill::SampleSpill(UniqueFd fd) : fd_(std::move(fd)) {
  static std::atomic<uint64_t> next_id{1};
  id_ = next_id.fetch_add(1, std::memory_order_relaxed);
}

std::optional<uint64_t> SampleSpill::append(std::span<const std::byte> bytes) {
  // One writer (the converting thread) at a time; the offset is reserved first all the same.
  const uint64_t offset = end_.fetch_add(bytes.size(), std::memory_order_relaxed);
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::pwrite(fd_.get(), bytes.data() + done, bytes.size() - done,
                               static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return std::nullopt;  // the reserved range stays a hole nobody reads
    done += static_cast<size_t>(n);
  }
  return offset;
}

bool SampleSpill::read(uint64_t offset, std::span<std::byte> out) const {
  const std::span<uint8_t> bytes(reinterpret_cast<uint8_t*>(out.data()), out.size());
  return read_exactly_at(fd_.get(), offset, bytes).has_value();
}

}  // namespace sprof::profile
