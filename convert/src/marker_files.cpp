#include "sprof/convert/marker_files.hpp"

#include <algorithm>
#include <charconv>

#include "sprof/convert/marker_schemas.hpp"
#include "sprof/core/log.hpp"
#include "sprof/core/text_lines.hpp"

namespace sprof::convert {

namespace {

// A marker file is read whole at the end of the recording; a runaway writer must not make the
// converter allocate without bound.
constexpr size_t kMaxMarkerFileBytes = size_t{256} << 20;

bool parse_u32(std::string_view s, uint32_t& out) {
  if (s.empty()) return false;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && end == s.data() + s.size();
}

// A decimal u64 at the start of `s`, followed by one space; advances past both.
bool take_u64(std::string_view& s, uint64_t& out) {
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  if (ec != std::errc() || end == s.data() || end == s.data() + s.size() || *end != ' ') {
    return false;
  }
  s.remove_prefix(static_cast<size_t>(end - s.data()) + 1);
  return true;
}

}  // namespace

std::optional<MarkerFileName> parse_marker_file_name(std::string_view path) {
  const auto slash = path.rfind('/');
  std::string_view name = slash == std::string_view::npos ? path : path.substr(slash + 1);
  if (!name.starts_with("marker-") || !name.ends_with(".txt")) return std::nullopt;
  name = name.substr(7, name.size() - 7 - 4);
  MarkerFileName out;
  const auto dash = name.find('-');
  if (!parse_u32(name.substr(0, dash), out.pid)) return std::nullopt;
  if (dash != std::string_view::npos) {
    uint32_t tid = 0;
    if (!parse_u32(name.substr(dash + 1), tid)) return std::nullopt;
    out.tid = tid;
  }
  return out;
}

std::vector<MarkerLine> parse_marker_lines(std::string_view text) {
  std::vector<MarkerLine> lines;
  while (!text.empty()) {
    // A last line without its newline may be cut short by a writer that died mid-write; its
    // name could be truncated, but the times are whole if both parse, so it is kept.
    std::string_view line = take_line(text);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    MarkerLine m;
    if (!take_u64(line, m.start_ns) || !take_u64(line, m.end_ns)) continue;
    if (m.end_ns < m.start_ns || line.empty()) continue;
    m.name = std::string(line);
    lines.push_back(std::move(m));
  }
  return lines;
}

profile::Marker user_marker(const MarkerLine& line, double start_ms, double end_ms) {
  profile::Marker m;
  m.name = line.name;
  m.start_ms = start_ms;
  if (line.end_ns == line.start_ns) {
    m.phase = profile::MarkerPhase::kInstant;
  } else {
    m.phase = profile::MarkerPhase::kInterval;
    m.end_ms = std::max(end_ms, start_ms);
  }
  m.category = profile::Category::kUser;
  m.type = kUserMarkerType;
  return m;
}

bool MarkerFiles::note_mmap(const std::string& path) {
  const auto name = parse_marker_file_name(path);
  if (!name) return false;
  // A process maps its file once per open (the header opens one per thread and translation
  // unit), so the same path can come many times.
  const bool known =
      std::any_of(files_.begin(), files_.end(), [&](const File& f) { return f.path == path; });
  if (!known) files_.push_back(File{path, name->pid, name->tid.value_or(name->pid)});
  return true;
}

std::vector<MarkerLine> MarkerFiles::read_file(const std::string& path) const {
  auto text = host_.read_file(path, kMaxMarkerFileBytes);
  if (!text) {
    log::debug("marker file skipped: " + text.error().message);
    return {};
  }
  return parse_marker_lines(*text);
}

}  // namespace sprof::convert
