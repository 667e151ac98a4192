// cli/rotating_output.hpp
//
// `record --rotate` and `--flight-recorder`: writes each interval's (each window's) profile into
// --output-dir as sprof-<UTC start>-<seq>.json.gz (a flight recording without --output-dir: beside
// -o, named <-o's name less .json.gz>-<UTC start>-<seq>.json.gz), so that names sort by time, each
// file atomically (a reader
// sees a whole file or none) and self-contained unless --no-presymbolicate, and keeps at most
// --max-files of them (the oldest by name go). Files are written on a thread of their own, so the
// recording thread goes on draining the rings while one is written: it waits only when
// kMaxQueued profiles already wait for the writer (writes slower than the intervals), which
// bounds memory.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>

#include "hinted_symbolicator.hpp"
#include "options.hpp"
#include "sprof/core/result.hpp"
#include "sprof/recorder/session.hpp"

namespace sprof::cli {

// What the files of a rotating recording add up to, for the summary.
struct RotationTotals {
  int files_written = 0;
  int files_failed = 0;
  int files_removed = 0;  // by --max-files
  uint64_t samples = 0;
  uint64_t lost = 0;  // records and samples the kernel dropped
  double longest_write_ms = 0;
  // How long the recording thread waited for room in the writer's queue (0 unless writes fall
  // behind the intervals).
  double longest_wait_ms = 0;
};

class RotatingOutput {
 public:
  // Creates `options.output_dir` (one level) when missing; fails when no file can be made in it.
  static Result<RotatingOutput> open(const RecordCommandOptions& options);
  // Movable until the first `submit` (which starts the writer thread).
  RotatingOutput(RotatingOutput&& other) noexcept;
  ~RotatingOutput();

  // Queues `interval`'s profile for the writer; waits while kMaxQueued are queued.
  void submit(recorder::Recording&& interval);
  // A flight window so far (RunControl::on_preview): when the writer is idle, it reads
  // the symbols `preview` needs, so that the next file's presymbolication finds them read, and
  // writes nothing. Dropped when the writer is busy (it then reads them for a file anyway) or
  // with --no-presymbolicate. Never waits.
  void preview(recorder::Recording&& preview);
  // Writes what is queued and stops the writer.
  void finish();
  const RotationTotals& totals() const { return totals_; }

  // "sprof-20261127T203512.345Z-000042.json.gz" for a profile that starts at `start_wall_ms`
  // (ms since the epoch), with `prefix` "sprof": fixed width after the prefix, so that names
  // sort by time and then by sequence.
  static std::string file_name(const std::string& prefix, double start_wall_ms, uint64_t sequence);
  const std::string& directory() const { return dir_; }

 private:
  static constexpr size_t kMaxQueued = 2;

  RotatingOutput(std::string dir, std::string prefix, const RecordCommandOptions& options);
  bool is_ours(const std::string& name) const;  // a name file_name gives with our prefix
  // Writes one file and prunes the directory; runs on the writer thread.
  void write(const recorder::Recording& interval, const std::string& path);
  void start_writer();
  void remove_oldest();
  void write_queued();  // the writer thread

  std::string dir_;
  std::string prefix_;  // "sprof", or a flight recording's -o name
  int max_files_ = 0;   // 0: keep all
  bool presymbolicate_ = true;
  uint64_t sequence_ = 0;
  HintedSymbolicator symbols_;  // the writer thread's: one for every file
  RotationTotals totals_;       // longest_wait_ms: the submitter's; the rest: the writer's

  std::mutex mutex_;
  std::condition_variable changed_;
  // Profile and path; an empty path: a preview, read for its symbols only.
  std::deque<std::pair<recorder::Recording, std::string>> queue_;
  bool closing_ = false;
  std::thread writer_;
};

}  // namespace sprof::cli
