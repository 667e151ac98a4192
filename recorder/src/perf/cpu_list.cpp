#include "perf/cpu_list.hpp"

#include <algorithm>
#include <charconv>
#include <fstream>
#include <iterator>
#include <string>

namespace sprof::recorder::perf {

namespace {

// Upper bound on CPU numbers we accept, so a corrupt range cannot allocate without bound.
constexpr uint32_t kMaxCpu = 1u << 16;

bool parse_u32(std::string_view s, uint32_t& out) {
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && end == s.data() + s.size() && !s.empty();
}

}  // namespace

Result<std::vector<uint32_t>> parse_cpu_list(std::string_view text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.remove_suffix(1);
  std::vector<uint32_t> cpus;
  auto bad = [&] { return fail(Errc::kMalformed, "cpu list '" + std::string(text) + "'"); };
  if (text.empty()) return bad();
  size_t pos = 0;
  while (pos <= text.size()) {
    const size_t comma = std::min(text.find(',', pos), text.size());
    const std::string_view item = text.substr(pos, comma - pos);
    const size_t dash = item.find('-');
    uint32_t first = 0, last = 0;
    if (dash == std::string_view::npos) {
      if (!parse_u32(item, first)) return bad();
      last = first;
    } else if (!parse_u32(item.substr(0, dash), first) || !parse_u32(item.substr(dash + 1), last) ||
               last < first) {
      return bad();
    }
    if (last >= kMaxCpu) return bad();
    for (uint32_t c = first; c <= last; ++c) cpus.push_back(c);
    pos = comma + 1;
  }
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  return cpus;
}

Result<std::vector<uint32_t>> online_cpus() {
  constexpr const char* kPath = "/sys/devices/system/cpu/online";
  std::ifstream in(kPath);
  if (!in) return unexpected(Error::from_errno(std::string("open ") + kPath));
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto cpus = parse_cpu_list(text);
  if (!cpus) return unexpected(cpus.error().with_context(kPath));
  return cpus;
}

}  // namespace sprof::recorder::perf
