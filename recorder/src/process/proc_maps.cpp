#include "process/proc_maps.hpp"

#include <dirent.h>

#include <algorithm>
#include <charconv>

#include "sprof/core/jit_symbol_file.hpp"  // read_small_file
#include "sprof/core/text_lines.hpp"

namespace sprof::recorder {

namespace {

constexpr std::string_view kDeletedSuffix = " (deleted)";

// A cursor over one maps line; each `next_*` consumes a field and the separator after it.
class LineCursor {
 public:
  explicit LineCursor(std::string_view s) : s_(s) {}

  bool hex(uint64_t& out, char separator) {
    const auto [p, ec] = std::from_chars(s_.data(), s_.data() + s_.size(), out, 16);
    return ec == std::errc() && consume_after(p, separator);
  }
  bool hex32(uint32_t& out, char separator) {
    const auto [p, ec] = std::from_chars(s_.data(), s_.data() + s_.size(), out, 16);
    return ec == std::errc() && consume_after(p, separator);
  }
  bool dec(uint64_t& out) {
    const auto [p, ec] = std::from_chars(s_.data(), s_.data() + s_.size(), out, 10);
    if (ec != std::errc()) return false;
    s_.remove_prefix(static_cast<size_t>(p - s_.data()));
    return true;
  }
  bool word(std::string_view& out) {
    const size_t sp = s_.find(' ');
    if (sp == std::string_view::npos || sp == 0) return false;
    out = s_.substr(0, sp);
    s_.remove_prefix(sp + 1);
    return true;
  }
  // Everything left after the spaces that pad the inode column; may contain spaces.
  std::string_view rest() {
    const size_t first = s_.find_first_not_of(' ');
    return first == std::string_view::npos ? std::string_view() : s_.substr(first);
  }

 private:
  bool consume_after(const char* p, char separator) {
    const size_t used = static_cast<size_t>(p - s_.data());
    if (used >= s_.size() || s_[used] != separator) return false;
    s_.remove_prefix(used + 1);
    return true;
  }
  std::string_view s_;
};

bool parse_line(std::string_view line, MapsEntry& e) {
  LineCursor c(line);
  std::string_view perms;
  if (!c.hex(e.start, '-') || !c.hex(e.end, ' ') || !c.word(perms) || perms.size() != 4 ||
      !c.hex(e.offset, ' ') || !c.hex32(e.dev_major, ':') || !c.hex32(e.dev_minor, ' ') ||
      !c.dec(e.inode)) {
    return false;
  }
  e.readable = perms[0] == 'r';
  e.writable = perms[1] == 'w';
  e.executable = perms[2] == 'x';
  e.shared = perms[3] == 's';
  std::string_view path = c.rest();
  if (path.size() > kDeletedSuffix.size() && path.ends_with(kDeletedSuffix)) {
    path.remove_suffix(kDeletedSuffix.size());
    e.deleted = true;
  }
  e.path = std::string(path);
  return e.start <= e.end;
}

// /proc files are read with read(2) (read_small_file), never through a stream: when the process
// or thread exits mid-read, read fails with ESRCH, which libstdc++'s filebuf turns into an
// exception that istreambuf_iterator does not catch (an attach recording of short-lived threads
// aborted on it). Bounds: a maps file of a process with a million mappings is ~100 MB; a comm is
// at most 16 bytes.
constexpr size_t kMaxMapsBytes = size_t{512} << 20;
constexpr size_t kMaxCommBytes = 4096;

}  // namespace

std::vector<MapsEntry> parse_maps(std::string_view text, size_t* malformed_lines) {
  std::vector<MapsEntry> entries;
  size_t bad = 0;
  while (!text.empty()) {
    const std::string_view line = take_line(text);
    if (line.empty()) continue;
    MapsEntry e;
    if (parse_line(line, e)) {
      entries.push_back(std::move(e));
    } else {
      ++bad;
    }
  }
  if (malformed_lines != nullptr) *malformed_lines = bad;
  return entries;
}

Result<std::vector<MapsEntry>> read_maps(pid_t pid, std::string_view proc_root) {
  SPROF_TRY(
      std::string text,
      read_small_file(std::string(proc_root) + "/" + std::to_string(pid) + "/maps", kMaxMapsBytes));
  return parse_maps(text);
}

Result<std::string> read_comm(pid_t pid, pid_t tid, std::string_view proc_root) {
  SPROF_TRY(std::string text, read_small_file(std::string(proc_root) + "/" + std::to_string(pid) +
                                                  "/task/" + std::to_string(tid) + "/comm",
                                              kMaxCommBytes));
  if (!text.empty() && text.back() == '\n') text.pop_back();
  return text;
}

Result<std::vector<pid_t>> list_threads(pid_t pid, std::string_view proc_root) {
  SPROF_TRY(const std::vector<uint32_t> tids,
            list_numeric_entries(std::string(proc_root) + "/" + std::to_string(pid) + "/task"));
  return std::vector<pid_t>(tids.begin(), tids.end());
}

Result<std::vector<uint32_t>> list_numeric_entries(const std::string& dir) {
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return unexpected(Error::from_errno("opendir " + dir));
  std::vector<uint32_t> numbers;
  while (const dirent* ent = ::readdir(d)) {
    const std::string_view name(ent->d_name);
    uint32_t number = 0;
    const auto [p, ec] = std::from_chars(name.data(), name.data() + name.size(), number);
    if (ec == std::errc() && p == name.data() + name.size()) numbers.push_back(number);
  }
  ::closedir(d);
  std::sort(numbers.begin(), numbers.end());
  return numbers;
}

std::vector<std::string> argv_from_proc(std::string_view cmdline) {
  // Arguments end with NUL each; a program that rewrote its argv may leave trailing NULs.
  while (!cmdline.empty() && cmdline.back() == '\0') cmdline.remove_suffix(1);
  std::vector<std::string> argv;
  if (cmdline.empty()) return argv;
  for (;;) {
    const auto end = cmdline.find('\0');
    argv.emplace_back(cmdline.substr(0, end));
    if (end == std::string_view::npos) break;
    cmdline.remove_prefix(end + 1);
  }
  return argv;
}

std::optional<std::vector<std::string>> read_proc_argv(uint32_t pid, const std::string& proc_root) {
  // The kernel caps what it shows of the arguments anyway; a page of them is enough to label.
  constexpr size_t kMaxCommandLineBytes = 1 << 20;
  auto text =
      read_small_file(proc_root + "/" + std::to_string(pid) + "/cmdline", kMaxCommandLineBytes);
  if (!text) return std::nullopt;
  auto argv = argv_from_proc(*text);
  if (argv.empty()) return std::nullopt;
  return argv;
}

}  // namespace sprof::recorder
