#include "rotating_output.hpp"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <string_view>
#include <utility>
#include <vector>

#include "console.hpp"
#include "self_contained.hpp"
#include "sprof/core/clock.hpp"
#include "sprof/core/replacing_file.hpp"
#include "sprof/presymbolicate/presymbolicate.hpp"
#include "sprof/profile/gecko_writer.hpp"

namespace sprof::cli {

namespace {

constexpr const char* kDefaultPrefix = "sprof";
constexpr std::string_view kSuffix = ".json.gz";

// Where a flight recording without --output-dir writes: -o's directory, and -o's name less
// its profile suffixes as the prefix ("profile" for profile.json.gz).
std::pair<std::string, std::string> beside_output(const std::string& output) {
  const auto slash = output.rfind('/');
  std::string dir = slash == std::string::npos ? "." : output.substr(0, slash);
  if (dir.empty()) dir = "/";
  std::string name = slash == std::string::npos ? output : output.substr(slash + 1);
  for (const std::string_view suffix : {std::string_view(".gz"), std::string_view(".json")}) {
    if (name.size() > suffix.size() && name.ends_with(suffix)) {
      name.resize(name.size() - suffix.size());
    }
  }
  return {std::move(dir), std::move(name)};
}

double ms_since(uint64_t start_ns) {
  return static_cast<double>(clock_ns(CLOCK_MONOTONIC) - start_ns) / 1e6;
}

}  // namespace

std::string RotatingOutput::file_name(const std::string& prefix, double start_wall_ms,
                                      uint64_t sequence) {
  const auto ms = static_cast<int64_t>(start_wall_ms);
  const time_t seconds = static_cast<time_t>(ms / 1000);
  tm utc{};
  gmtime_r(&seconds, &utc);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%S", &utc);
  char tail[64];
  std::snprintf(tail, sizeof tail, "-%s.%03dZ-%06llu", stamp, static_cast<int>(ms % 1000),
                static_cast<unsigned long long>(sequence));
  return prefix + tail + std::string(kSuffix);
}

bool RotatingOutput::is_ours(const std::string& name) const {
  // Exactly file_name's shape after the prefix ('0' stands for a digit; the sequence may outgrow
  // its six digits): another file that shares the prefix, as -o's own profile.json.gz, is never
  // removed by --max-files.
  constexpr std::string_view kStamp = "-00000000T000000.000Z-000000";
  std::string_view rest(name);
  if (!rest.starts_with(prefix_) || !rest.ends_with(kSuffix)) return false;
  rest.remove_prefix(prefix_.size());
  rest.remove_suffix(kSuffix.size());
  if (rest.size() < kStamp.size()) return false;
  for (size_t i = 0; i < rest.size(); ++i) {
    const char want = i < kStamp.size() ? kStamp[i] : '0';
    const bool ok =
        want == '0' ? std::isdigit(static_cast<unsigned char>(rest[i])) != 0 : rest[i] == want;
    if (!ok) return false;
  }
  return true;
}

RotatingOutput::RotatingOutput(std::string dir, std::string prefix,
                               const RecordCommandOptions& options)
    : dir_(std::move(dir)),
      prefix_(std::move(prefix)),
      max_files_(options.max_files),
      presymbolicate_(options.presymbolicate),
      symbols_(options.serve.symbols) {}

RotatingOutput::RotatingOutput(RotatingOutput&& other) noexcept
    : dir_(std::move(other.dir_)),
      prefix_(std::move(other.prefix_)),
      max_files_(other.max_files_),
      presymbolicate_(other.presymbolicate_),
      sequence_(other.sequence_),
      symbols_(std::move(other.symbols_)),
      totals_(other.totals_) {}

RotatingOutput::~RotatingOutput() { finish(); }

Result<RotatingOutput> RotatingOutput::open(const RecordCommandOptions& options) {
  auto [dir, prefix] = options.output_dir.empty() ? beside_output(options.output)
                                                  : std::pair<std::string, std::string>(
                                                        options.output_dir, kDefaultPrefix);
  if (::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) {
    return fail(Errc::kIo, "mkdir " + dir + ": " + std::strerror(errno));
  }
  SPROF_TRY_VOID(ReplacingFile::check_target(dir + "/" + file_name(prefix, 0, 0)));
  return RotatingOutput(std::move(dir), std::move(prefix), options);
}

void RotatingOutput::submit(recorder::Recording&& interval) {
  // A flight window keeps the recording's time origin and starts at profilingStartTime.
  const profile::Meta& meta = interval.profile.meta;
  const double start_wall_ms = meta.start_time_ms + meta.profiling_start_ms.value_or(0);
  std::string path = dir_ + "/" + file_name(prefix_, start_wall_ms, sequence_++);
  const uint64_t wait_start = clock_ns(CLOCK_MONOTONIC);
  {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [this] { return queue_.size() < kMaxQueued; });
    queue_.emplace_back(std::move(interval), std::move(path));
  }
  totals_.longest_wait_ms = std::max(totals_.longest_wait_ms, ms_since(wait_start));
  changed_.notify_all();
  start_writer();
}

void RotatingOutput::preview(recorder::Recording&& preview) {
  if (!presymbolicate_) return;
  {
    const std::lock_guard lock(mutex_);
    if (!queue_.empty()) return;
    queue_.emplace_back(std::move(preview), std::string());
  }
  changed_.notify_all();
  start_writer();
}

void RotatingOutput::start_writer() {
  if (!writer_.joinable()) writer_ = std::thread([this] { write_queued(); });
}

void RotatingOutput::finish() {
  {
    const std::lock_guard lock(mutex_);
    closing_ = true;
  }
  changed_.notify_all();
  if (writer_.joinable()) writer_.join();
}

void RotatingOutput::write_queued() {
  std::unique_lock lock(mutex_);
  for (;;) {
    changed_.wait(lock, [this] { return closing_ || !queue_.empty(); });
    if (queue_.empty()) return;  // closing, and all written
    // Written while still queued, so that the queue's bound counts the profile being written;
    // only this thread pops, so the front stays put meanwhile.
    const auto& [interval, path] = queue_.front();
    lock.unlock();
    if (path.empty()) {
      symbols_.read_ahead(interval.profile);
    } else {
      write(interval, path);
    }
    lock.lock();
    queue_.pop_front();
    changed_.notify_all();
  }
}

void RotatingOutput::write(const recorder::Recording& interval, const std::string& path) {
  const uint64_t start = clock_ns(CLOCK_MONOTONIC);
  Result<void> written = ok();
  if (presymbolicate_) {
    // Debuginfod downloads this file's pass starts are not waited for: the next files have
    // the names they bring.
    auto report = presymbolicate::save_self_contained(interval.profile,
                                                      symbols_.for_profile(interval.profile), path);
    if (!report) written = unexpected(std::move(report).error());
  } else {
    auto bytes = profile::write_gecko_file(interval.profile, path);
    if (!bytes) written = unexpected(std::move(bytes).error());
  }
  totals_.samples += interval.stats.samples;
  totals_.lost += interval.stats.lost_records + interval.stats.lost_samples;
  if (!written) {
    ++totals_.files_failed;
    std::fprintf(stderr, "sprof: cannot write %s: %s\n", path.c_str(),
                 written.error().message.c_str());
    return;
  }
  ++totals_.files_written;
  totals_.longest_write_ms = std::max(totals_.longest_write_ms, ms_since(start));
  if (max_files_ > 0) remove_oldest();
}

void RotatingOutput::remove_oldest() {
  DIR* dir = ::opendir(dir_.c_str());
  if (dir == nullptr) return;
  std::vector<std::string> names;
  while (const dirent* entry = ::readdir(dir)) {
    if (is_ours(entry->d_name)) names.emplace_back(entry->d_name);
  }
  ::closedir(dir);
  if (names.size() <= static_cast<size_t>(max_files_)) return;
  std::sort(names.begin(), names.end());
  const size_t excess = names.size() - static_cast<size_t>(max_files_);
  for (size_t i = 0; i < excess; ++i) {
    if (::unlink((dir_ + "/" + names[i]).c_str()) == 0) ++totals_.files_removed;
  }
}

}  // namespace sprof::cli
