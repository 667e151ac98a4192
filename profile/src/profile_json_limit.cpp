#include "sprof/profile/profile_json_limit.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <fstream>
#include <string_view>

namespace sprof::profile {

namespace {

constexpr uint64_t kMiB = uint64_t{1} << 20;

// MemAvailable from /proc/meminfo, in bytes; nullopt where the kernel does not say.
std::optional<uint64_t> mem_available() {
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  uint64_t kib = 0;
  std::string unit;
  while (meminfo >> key >> kib) {
    std::getline(meminfo, unit);
    if (key == "MemAvailable:") return kib * 1024;
  }
  return std::nullopt;
}

std::optional<uint64_t> address_space_limit() {
  rlimit limit{};
  if (::getrlimit(RLIMIT_AS, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return std::nullopt;
  return limit.rlim_cur;
}

std::optional<uint64_t> smaller(std::optional<uint64_t> a, std::optional<uint64_t> b) {
  if (!a) return b;
  if (!b) return a;
  return std::min(*a, *b);
}

}  // namespace

ProfileJsonLimit profile_json_limit(std::optional<uint64_t> available_bytes) {
  if (!available_bytes || *available_bytes / kParseBytesPerJsonByte >= kMaxProfileJsonBytes) {
    return {kMaxProfileJsonBytes, "the most the Firefox Profiler can load"};
  }
  return {*available_bytes / kParseBytesPerJsonByte,
          "the most that fits in the " + std::to_string(*available_bytes / kMiB) +
              " MiB of memory available (parsing takes up to " +
              std::to_string(kParseBytesPerJsonByte) + " bytes per byte of JSON)"};
}

ProfileJsonLimit profile_json_limit() {
  return profile_json_limit(smaller(mem_available(), address_space_limit()));
}

}  // namespace sprof::profile
