// Unwinding benchmark: cost per sample of sprof's unwinders on real samples.
//
// The `unwind_snapshots` test target samples itself (registers + 8 KiB stack copies, exactly what
// PERF_SAMPLE_REGS_USER/STACK_USER deliver) in known call chains: frameless leaves, a shared
// library, libm, a signal handler, deep recursion, a second thread, the vdso and qsort callbacks.
// Measured on those samples:
//   - CFI warm: `CfiUnwinder` with its per-PC rule cache filled (the steady state while recording);
//   - CFI cold: the first pass of a fresh unwinder (opening every file's CFI and querying libdw
//     for every new PC is part of the time);
//   - frame pointers: `FramePointerUnwinder` (fewer frames: Debian's libraries have no rbp chain).
// Each mode runs `--runs` passes over all samples; the table reports min and median us/sample.
//
// usage: sprof_bench_unwind [--runs N] [--phase-ms MS] [--snapshots DIR]
//   --snapshots reuses a directory written by `unwind_snapshots DIR` instead of running it.
// Output: a Markdown section on stdout.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "sprof/recorder/local_files.hpp"
#include "sprof/unwind/cfi_rule_cache.hpp"
#include "sprof/unwind/cfi_unwinder.hpp"
#include "sprof/unwind/frame_pointer_unwinder.hpp"
#include "unwind_snapshot.hpp"

namespace {

using Clock = std::chrono::steady_clock;
using sprof::unwind::CfiUnwinder;
using sprof::unwind::FramePointerUnwinder;
using sprof::unwind::Unwinder;
using sprof::unwind::UnwindResult;
using sprof::unwind::UnwindStop;

struct Options {
  int runs = 20;
  int phase_ms = 150;
  std::string snapshots;
};

struct PassResult {
  double us_per_sample = 0;
  size_t frames = 0;
  size_t complete = 0;
};

PassResult one_pass(Unwinder& unwinder, const sprof::test::SnapshotRun& run) {
  PassResult r;
  UnwindResult result;
  const auto start = Clock::now();
  for (const auto& sample : run.samples) {
    unwinder.unwind(sample.regs, sample.memory(), run.space, result);
    r.frames += result.frames.size();
    r.complete += result.stop == UnwindStop::kComplete ? 1 : 0;
  }
  const std::chrono::duration<double, std::micro> elapsed = Clock::now() - start;
  r.us_per_sample = elapsed.count() / static_cast<double>(run.samples.size());
  return r;
}

struct Summary {
  double min = 0;
  double median = 0;
  PassResult last;
};

Summary summarise(std::vector<PassResult> passes) {
  Summary s;
  s.last = passes.back();
  std::sort(passes.begin(), passes.end(), [](const PassResult& a, const PassResult& b) {
    return a.us_per_sample < b.us_per_sample;
  });
  s.min = passes.front().us_per_sample;
  s.median = passes[passes.size() / 2].us_per_sample;
  return s;
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--runs") == 0) o.runs = std::max(1, std::atoi(argv[i + 1]));
    if (std::strcmp(argv[i], "--phase-ms") == 0) o.phase_ms = std::max(10, std::atoi(argv[i + 1]));
    if (std::strcmp(argv[i], "--snapshots") == 0) o.snapshots = argv[i + 1];
  }
  return o;
}

void print_row(const char* mode, const Summary& s, size_t samples) {
  std::printf("| %s | %.2f | %.2f | %.1f | %.1f %% |\n", mode, s.min, s.median,
              static_cast<double>(s.last.frames) / static_cast<double>(samples),
              100.0 * static_cast<double>(s.last.complete) / static_cast<double>(samples));
}

}  // namespace

int main(int argc, char** argv) {
  const Options options = parse(argc, argv);
  auto run = options.snapshots.empty()
                 ? sprof::test::record_snapshot_run(SPROF_UNWIND_SNAPSHOTS_TARGET, options.phase_ms)
                 : sprof::test::load_snapshot_run(options.snapshots);
  if (!run) {
    std::fprintf(stderr, "sprof_bench_unwind: %s\n", run.error().message.c_str());
    return 1;
  }
  if (run->samples.empty()) {
    std::fprintf(stderr, "sprof_bench_unwind: no samples\n");
    return 1;
  }
  const size_t n = run->samples.size();

  std::vector<PassResult> cold;
  std::vector<PassResult> warm;
  sprof::recorder::LocalFiles files;  // the snapshots' binaries, as they are on this machine
  CfiUnwinder warm_unwinder(files);
  one_pass(warm_unwinder, *run);  // fill the caches
  for (int i = 0; i < options.runs; ++i) {
    CfiUnwinder fresh(files);
    cold.push_back(one_pass(fresh, *run));
    warm.push_back(one_pass(warm_unwinder, *run));
  }
  std::vector<PassResult> fp;
  fp.reserve(static_cast<size_t>(options.runs));
  FramePointerUnwinder fp_unwinder;
  for (int i = 0; i < options.runs; ++i) fp.push_back(one_pass(fp_unwinder, *run));

  const auto& stats = warm_unwinder.rule_cache()->stats();
  std::printf("## Unwinding\n\n");
  std::printf(
      "%zu samples of `unwind_snapshots` (8 KiB stack copies, -O2 -fomit-frame-pointer, "
      "through libc, libm, a shared library, the vdso, a signal handler and a thread); "
      "%d passes per mode.\n\n",
      n, options.runs);
  std::printf("| mode | min us/sample | median us/sample | frames/sample | complete |\n");
  std::printf("| --- | --- | --- | --- | --- |\n");
  print_row("CFI, warm rule cache", summarise(warm), n);
  print_row("CFI, cold (fresh unwinder per pass)", summarise(cold), n);
  print_row("frame pointers", summarise(fp), n);
  std::printf(
      "\nWarm rule cache: %llu lookups, %.2f %% per-PC hits, %llu libdw queries in total "
      "(%llu modules opened).\n",
      static_cast<unsigned long long>(stats.lookups),
      100.0 * static_cast<double>(stats.pc_hits) / static_cast<double>(stats.lookups),
      static_cast<unsigned long long>(stats.cfi_queries),
      static_cast<unsigned long long>(stats.modules_opened));
  return 0;
}
