// cli/rotating_output.hpp
//
// `record --rotate`: writes each interval's profile into --output-dir as
// sprof-<UTC start>-<seq>.json.gz, so that names sort by time, each file atomically (a reader
// sees a whole file or none) and self-contained unless --no-presymbolicate, and keeps at most
// --max-files of them (the oldest by name go). Files are written on a thread of their own, so the
// recording thread goes on draining the rings; a write still running when the next interval ends
// is waited for (at most one write in flight bounds memory).
#pragma once

#include <cstdint>
#include <future>
#include <string>

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
  // How long the recording thread waited for the previous write before handing on the next.
  double longest_wait_ms = 0;
};

class RotatingOutput {
 public:
  // Creates `options.output_dir` (one level) when missing; fails when no file can be made in it.
  static Result<RotatingOutput> open(const RecordCommandOptions& options);
  RotatingOutput(RotatingOutput&&) noexcept = default;
  RotatingOutput& operator=(RotatingOutput&&) noexcept = default;
  ~RotatingOutput();

  // Starts writing `interval`'s profile, after the previous write has finished.
  void submit(recorder::Recording&& interval);
  // Waits for the write in flight.
  void finish();
  const RotationTotals& totals() const { return totals_; }

  // "sprof-20261127T203512.345Z-000042.json.gz" for a profile that starts at `start_wall_ms`
  // (ms since the epoch): fixed width, so that names sort by time and then by sequence.
  static std::string file_name(double start_wall_ms, uint64_t sequence);

 private:
  explicit RotatingOutput(const RecordCommandOptions& options);
  // Writes one file and prunes the directory; runs on the writer thread.
  void write(const recorder::Recording& interval, const std::string& path);
  void remove_oldest();

  std::string dir_;
  int max_files_ = 0;  // 0: keep all
  bool presymbolicate_ = true;
  SymbolSources symbols_;
  uint64_t sequence_ = 0;
  RotationTotals totals_;  // written by the writer thread only between submit and its wait
  std::future<void> in_flight_;
};

}  // namespace sprof::cli
