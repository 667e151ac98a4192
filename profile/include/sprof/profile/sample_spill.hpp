// sprof/profile/sample_spill.hpp
//
// Where a recording's full blocks of samples (SampleList) wait for the profile to be written, so
// that sprof's memory stays flat however long it records: an unlinked temporary file, gone when
// sprof exits however it exits. Blocks are appended once, never changed, and read back when the
// profile is written (by whichever thread writes). An append that fails (a full disk) leaves
// the block in memory: a full disk costs memory, never samples.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>

#include "sprof/core/unique_fd.hpp"

namespace sprof::profile {

class SampleSpill {
 public:
  // A spill file in `directory` (when empty: $TMPDIR, else /var/tmp, else /tmp); nullptr when
  // none can be made (the samples then stay in memory).
  static std::shared_ptr<SampleSpill> open_temporary(std::string directory = {});

  // Where `bytes` now are; nullopt when they could not be written.
  std::optional<uint64_t> append(std::span<const std::byte> bytes);
  // Reads back what `append` wrote at `offset`; false if the file fails to give it.
  bool read(uint64_t offset, std::span<std::byte> out) const;
  uint64_t bytes() const { return end_.load(std::memory_order_relaxed); }
  // Unique per spill file for the life of the process (an address may be reused).
  uint64_t id() const { return id_; }

 private:
  explicit SampleSpill(UniqueFd fd);
  UniqueFd fd_;
  uint64_t id_;
  std::atomic<uint64_t> end_{0};
};

}  // namespace sprof::profile
