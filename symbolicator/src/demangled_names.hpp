// demangled_names.hpp (private)
//
// Demangles each of a symbol map's names at most once, on first use, without locks: lookups run
// concurrently on an immutable map, so the cache slots are atomics and a thread that loses the
// race to fill a slot discards its copy. Demangling every name up front would cost ~2-5 us per
// name at build time for names that are mostly never asked for; demangling per lookup costs the
// same again for every frame of every request.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "sprof/symbolicator/demangle.hpp"

namespace sprof::symbolicator::detail {

class DemangledNames {
 public:
  DemangledNames() = default;
  explicit DemangledNames(size_t count) : slots_(count) {}
  DemangledNames(DemangledNames&& other) noexcept : slots_(std::move(other.slots_)) {}
  DemangledNames& operator=(DemangledNames&& other) noexcept {
    clear();
    slots_ = std::move(other.slots_);
    return *this;
  }
  DemangledNames(const DemangledNames&) = delete;
  DemangledNames& operator=(const DemangledNames&) = delete;
  ~DemangledNames() { clear(); }

  // The demangled form of `mangled`, which must always be the same name for one `index`.
  const std::string& get(size_t index, std::string_view mangled) const {
    std::atomic<std::string*>& slot = slots_[index];
    if (std::string* cached = slot.load(std::memory_order_acquire)) return *cached;
    auto fresh = std::make_unique<std::string>(demangle(mangled));
    std::string* expected = nullptr;
    if (slot.compare_exchange_strong(expected, fresh.get(), std::memory_order_acq_rel)) {
      return *fresh.release();
    }
    return *expected;  // another thread filled it first
  }

 private:
  void clear() {
    for (auto& slot : slots_) delete slot.load(std::memory_order_relaxed);
    slots_.clear();
  }

  mutable std::vector<std::atomic<std::string*>> slots_;
};

}  // namespace sprof::symbolicator::detail
