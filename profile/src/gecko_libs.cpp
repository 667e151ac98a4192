#include "gecko_libs.hpp"

#include <algorithm>
#include <tuple>

namespace sprof::profile::detail {

namespace {

constexpr uint64_t kExactDoubleLimit = uint64_t{1} << 53;
constexpr uint64_t kPage = 4096;

uint64_t round_down_if_large(uint64_t v) { return v >= kExactDoubleLimit ? v & ~(kPage - 1) : v; }

uint64_t round_up_if_large(uint64_t v) {
  if (v < kExactDoubleLimit) return v;
  const uint64_t rounded = v & ~(kPage - 1);
  // The last page below 2^64 cannot be rounded up; its start is still an exact double.
  if (rounded == v || rounded == ~(kPage - 1)) return rounded;
  return rounded + kPage;
}

}  // namespace

std::vector<Library> normalize_libs(std::vector<Library> libs) {
  for (Library& lib : libs) {
    lib.start = round_down_if_large(lib.start);
    lib.end = round_up_if_large(lib.end);
  }
  std::stable_sort(libs.begin(), libs.end(), [](const Library& a, const Library& b) {
    return std::tie(a.start, a.end, a.path, a.name) < std::tie(b.start, b.end, b.path, b.name);
  });

  std::vector<Library> out;
  out.reserve(libs.size());
  for (Library& lib : libs) {
    if (!out.empty() && lib.start < out.back().end) {
      const uint64_t shift = out.back().end - lib.start;
      lib.start += shift;
      lib.offset += shift;
    }
    if (lib.start >= lib.end) continue;
    out.push_back(std::move(lib));
  }
  return out;
}

}  // namespace sprof::profile::detail
