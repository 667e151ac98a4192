#include "sprof/convert/jit_libraries.hpp"

#include <algorithm>

#include "sprof/core/log.hpp"

namespace sprof::convert {

namespace {

struct Range {
  uint64_t start, end;
};

std::string basename_of(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// The real libs' ranges, sorted and merged into disjoint ranges (the profile keeps every lib
// ever mapped, so they may overlap each other).
std::vector<Range> occupied_ranges(const std::vector<profile::Library>& libs) {
  std::vector<Range> ranges;
  for (const auto& lib : libs) {
    if (lib.end > lib.start) ranges.push_back({lib.start, lib.end});
  }
  std::sort(ranges.begin(), ranges.end(), [](Range a, Range b) { return a.start < b.start; });
  std::vector<Range> merged;
  for (Range r : ranges) {
    if (!merged.empty() && r.start <= merged.back().end) {
      merged.back().end = std::max(merged.back().end, r.end);
    } else {
      merged.push_back(r);
    }
  }
  return merged;
}

bool intersects(const std::vector<Range>& occupied, uint64_t start, uint64_t end) {
  auto it = std::upper_bound(occupied.begin(), occupied.end(), start,
                             [](uint64_t a, Range r) { return a < r.end; });
  return it != occupied.end() && it->start < end;
}

}  // namespace

std::vector<profile::Library> jit_libraries_for(const std::vector<JitSymbol>& symbols,
                                                const std::string& path, uint64_t content_hash,
                                                const std::vector<profile::Library>& existing) {
  // Relative addresses must stay below 2^32 (the front end's limit).
  constexpr uint64_t kWindowBytes = uint64_t{1} << 32;
  const std::vector<Range> occupied = occupied_ranges(existing);
  std::vector<Range> code;
  for (const JitSymbol& s : symbols) {
    // A symbol without a size still covers its first byte.
    const uint64_t end = s.start + std::max<uint64_t>(s.size, 1);
    if (end <= s.start || intersects(occupied, s.start, end)) continue;
    code.push_back({s.start, end});
  }
  std::sort(code.begin(), code.end(), [](Range a, Range b) { return a.start < b.start; });

  std::vector<profile::Library> libs;
  uint64_t base = 0;
  const auto add = [&](Range r) {
    profile::Library lib;
    lib.start = r.start;
    lib.end = r.end;
    lib.offset = r.start - base;  // relative = AVMA - base
    lib.name = lib.debug_name = basename_of(path);
    lib.path = lib.debug_path = path;
    lib.breakpad_id = jit_breakpad_id(base, content_hash);
    libs.push_back(std::move(lib));
  };
  std::optional<Range> run;
  for (Range r : code) {
    const bool same_window = run && r.end - base <= kWindowBytes;
    if (same_window && !intersects(occupied, run->start, std::max(run->end, r.end))) {
      run->end = std::max(run->end, r.end);
      continue;
    }
    if (run) add(*run);
    if (!same_window) base = r.start & ~uint64_t{0xFFF};
    run = r;
  }
  if (run) add(*run);
  return libs;
}

bool JitLibraries::note_mmap(uint32_t pid, const std::string& path) {
  if (jit_file_kind(path) != JitFileKind::kJitDump) return false;
  auto& paths = jitdumps_[pid];
  if (std::find(paths.begin(), paths.end(), path) == paths.end()) paths.push_back(path);
  return true;
}

std::vector<std::string> JitLibraries::files_of(uint32_t pid) const {
  std::vector<std::string> files;
  const std::string perf_map = options_.perf_map_dir + "/perf-" + std::to_string(pid) + ".map";
  if (const auto mtime = files_.modified_wall_ms(perf_map)) {
    if (*mtime >= options_.min_mtime_wall_ms || attached_.contains(pid)) {
      files.push_back(perf_map);
    } else {
      log::debug(perf_map + " predates the recording; ignored");
    }
  }
  if (auto it = jitdumps_.find(pid); it != jitdumps_.end()) {
    files.insert(files.end(), it->second.begin(), it->second.end());
  }
  return files;
}

std::vector<profile::Library> JitLibraries::add_libraries(
    uint32_t pid, std::vector<profile::Library>& libs) const {
  std::vector<profile::Library> added;
  for (const std::string& path : files_of(pid)) {
    auto content = files_.read_file(path, kMaxJitFileBytes);
    if (!content) {
      log::debug("JIT symbols skipped: " + content.error().message);
      continue;
    }
    auto symbols = parse_jit_symbol_file(jit_file_kind(path), *content);
    if (!symbols) {
      log::debug("JIT symbols skipped: " + path + ": " + symbols.error().message);
      continue;
    }
    auto jit_libs = jit_libraries_for(*symbols, path, jit_content_hash(*content), libs);
    added.insert(added.end(), jit_libs.begin(), jit_libs.end());
    libs.insert(libs.end(), std::make_move_iterator(jit_libs.begin()),
                std::make_move_iterator(jit_libs.end()));
  }
  if (!added.empty()) {
    std::stable_sort(
        libs.begin(), libs.end(),
        [](const profile::Library& a, const profile::Library& b) { return a.start < b.start; });
  }
  return added;
}

void mark_jit_frames(const std::vector<profile::Library>& jit_libs, profile::Thread& thread) {
  if (jit_libs.empty()) return;
  const std::vector<Range> jit = occupied_ranges(jit_libs);
  thread.recategorize_address_frames(
      [&jit](uint64_t address, profile::Category category) -> std::optional<profile::Category> {
        if (category != profile::Category::kUser || !intersects(jit, address, address + 1)) {
          return std::nullopt;
        }
        return profile::Category::kJit;
      });
}

}  // namespace sprof::convert
