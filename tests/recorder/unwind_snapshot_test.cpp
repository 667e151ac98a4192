// tests/recorder/unwind_snapshot_test.cpp
//
// `CfiUnwinder` on real samples: the `unwind_snapshots` target samples itself (registers + stack
// copy, like PERF_SAMPLE_REGS_USER/STACK_USER) while running known call chains compiled
// -O2 -fomit-frame-pointer, through a shared library, libm, libc, the vdso, a signal handler and
// a second thread. Unwound frames are named through the target's symbol tables and compared with
// the chain each phase runs; only functions of the target are asserted, never libc's names.
#include "unwind_snapshot.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "sprof/recorder/local_files.hpp"
#include "sprof/unwind/cfi_rule_cache.hpp"
#include "sprof/unwind/cfi_unwinder.hpp"
#include "sprof/unwind/frame_pointer_unwinder.hpp"
#include "sprof_test/paths.hpp"

namespace sprof::test {
namespace {

using sprof::unwind::CfiUnwinder;
using sprof::unwind::UnwindResult;
using sprof::unwind::UnwindStop;

const SnapshotRun& snapshot_run() {
  static const Result<SnapshotRun> run =
      record_snapshot_run(std::string(kTargetsDir) + "/unwind_snapshots", 150);
  REQUIRE_MESSAGE(run.has_value(), (run ? "" : run.error().message));
  return *run;
}

// The target's own functions (the names tests may assert on).
const std::vector<std::string> kOwnFunctions = {
    "leaf_polynomial",  "leaf_caller",     "phase_leaf",   "exe_callback", "lib_apply",
    "phase_shared_lib", "phase_libm",      "handler_work", "usr1_handler", "phase_signal",
    "recurse",          "phase_recursion", "thread_work",  "thread_body",  "phase_thread",
    "phase_vdso",       "compare_ints",    "phase_qsort",  "main"};

struct Unwound {
  const UnwindSnapshot* sample = nullptr;
  UnwindResult result;
  std::vector<std::string> names;      // per frame, "" when unknown
  std::vector<std::string> own_chain;  // the target's functions only, innermost first
  std::string frame0_module;
};

class Fixture {
 public:
  Fixture() : symbols_(snapshot_run().space) {
    for (const auto& sample : snapshot_run().samples) {
      Unwound u;
      u.sample = &sample;
      unwinder_.unwind(sample.regs, sample.memory(), snapshot_run().space, u.result);
      for (const auto& frame : u.result.frames) {
        std::string name = symbols_.name_of(frame.lookup_address());
        if (name.find("lib_inner") != std::string::npos) name = "lib_inner";
        const bool own =
            name == "lib_inner" ||
            std::find(kOwnFunctions.begin(), kOwnFunctions.end(), name) != kOwnFunctions.end();
        if (own) u.own_chain.push_back(name);
        u.names.push_back(std::move(name));
      }
      u.frame0_module = symbols_.module_of(sample.regs.ip());
      unwound_.push_back(std::move(u));
    }
  }
  std::vector<const Unwound*> phase(Phase p) const {
    std::vector<const Unwound*> out;
    for (const auto& u : unwound_) {
      if (u.sample->phase == p) out.push_back(&u);
    }
    return out;
  }
  const std::vector<Unwound>& all() const { return unwound_; }
  CfiUnwinder& unwinder() { return unwinder_; }

 private:
  SymbolLookup symbols_;
  recorder::LocalFiles files_;  // the run's binaries, as they are on this machine
  CfiUnwinder unwinder_{files_};
  std::vector<Unwound> unwound_;
};

Fixture& fixture() {
  static Fixture f;
  return f;
}

std::string describe(const Unwound& u) {
  std::string text = std::string("phase ") + phase_name(u.sample->phase) + ", stop " +
                     sprof::unwind::unwind_stop_name(u.result.stop) + ", frames:";
  for (size_t i = 0; i < u.names.size(); ++i) {
    text += " " + (u.names[i].empty() ? "?" : u.names[i]);
  }
  return text + ", frame 0 in " + u.frame0_module;
}

bool ends_with(const std::vector<std::string>& chain, const std::vector<std::string>& suffix) {
  return chain.size() >= suffix.size() &&
         std::equal(suffix.rbegin(), suffix.rend(), chain.rbegin());
}

// Every sample of `p` unwinds completely and its own functions end with `suffix`.
void check_phase_reaches(Phase p, const std::vector<std::string>& suffix) {
  const auto samples = fixture().phase(p);
  REQUIRE_MESSAGE(samples.size() >= 5, "too few samples in phase " << phase_name(p));
  for (const Unwound* u : samples) {
    INFO(describe(*u));
    CHECK(u->result.stop == UnwindStop::kComplete);
    CHECK(ends_with(u->own_chain, suffix));
  }
}

// Samples of `p` whose frame 0 is in `function` have exactly `chain` as their own functions.
size_t check_chain_from(Phase p, const std::string& function,
                        const std::vector<std::string>& chain) {
  size_t matched = 0;
  for (const Unwound* u : fixture().phase(p)) {
    if (u->names.empty() || u->names[0] != function) continue;
    INFO(describe(*u));
    CHECK(u->own_chain == chain);
    ++matched;
  }
  return matched;
}

size_t count_frame0_in_module(Phase p, const std::string& module_part) {
  const auto samples = fixture().phase(p);
  return static_cast<size_t>(std::count_if(samples.begin(), samples.end(), [&](const Unwound* u) {
    return u->frame0_module.find(module_part) != std::string::npos;
  }));
}

}  // namespace

TEST_CASE("every real sample unwinds to its thread's entry unless the stack copy was cut") {
  for (const Unwound& u : fixture().all()) {
    INFO(describe(u));
    if (u.sample->copy_is_complete()) {
      CHECK(u.result.stop == UnwindStop::kComplete);
    } else {
      CHECK(
          (u.result.stop == UnwindStop::kComplete || u.result.stop == UnwindStop::kStackTruncated));
    }
    CHECK(u.result.frames.size() >= 2);
  }
}

TEST_CASE("leaf functions without frames unwind through every caller") {
  check_phase_reaches(Phase::kLeaf, {"phase_leaf", "main"});
  CHECK(check_chain_from(Phase::kLeaf, "leaf_polynomial",
                         {"leaf_polynomial", "leaf_caller", "phase_leaf", "main"}) > 0);
}

TEST_CASE("frames in a shared library and callbacks from it unwind across both modules") {
  // The loop condition reads the clock from phase_shared_lib itself, so a sample may land there
  // (more often on a busy machine, where clock_gettime can be slow) without lib_apply below it.
  check_phase_reaches(Phase::kSharedLib, {"phase_shared_lib", "main"});
  CHECK(check_chain_from(Phase::kSharedLib, "exe_callback",
                         {"exe_callback", "lib_apply", "phase_shared_lib", "main"}) > 0);
  check_chain_from(Phase::kSharedLib, "lib_inner",
                   {"lib_inner", "lib_apply", "phase_shared_lib", "main"});
  CHECK(count_frame0_in_module(Phase::kSharedLib, "libunwind_target_lib") > 0);
  // Every sample inside the library keeps the library's caller chain.
  for (const Unwound* u : fixture().phase(Phase::kSharedLib)) {
    if (u->frame0_module.find("libunwind_target_lib") == std::string::npos) continue;
    INFO(describe(*u));
    CHECK(ends_with(u->own_chain, {"lib_apply", "phase_shared_lib", "main"}));
  }
}

TEST_CASE("samples inside libm, built without frame pointers, keep their calling function") {
  check_phase_reaches(Phase::kLibm, {"phase_libm", "main"});
  CHECK(count_frame0_in_module(Phase::kLibm, "libm.so") > 0);
}

TEST_CASE("a signal handler unwinds through the sigreturn trampoline to the interrupted code") {
  check_phase_reaches(Phase::kSignal, {"phase_signal", "main"});
  CHECK(check_chain_from(Phase::kSignal, "handler_work",
                         {"handler_work", "usr1_handler", "phase_signal", "main"}) > 0);
  // The frame after the trampoline is the interrupted instruction itself.
  size_t exact = 0;
  for (const Unwound* u : fixture().phase(Phase::kSignal)) {
    const auto& frames = u->result.frames;
    for (size_t i = 1; i < frames.size(); ++i) {
      if (frames[i].kind == FrameAddress::Kind::kInstructionPointer) ++exact;
    }
  }
  CHECK(exact > 0);
}

TEST_CASE("recursion deeper than the stack copy stops as truncated after the copied frames") {
  size_t deep = 0;
  for (const Unwound* u : fixture().phase(Phase::kRecursion)) {
    if (u->sample->copy_is_complete()) continue;
    INFO(describe(*u));
    CHECK(u->result.stop == UnwindStop::kStackTruncated);
    const auto recursions = std::count(u->own_chain.begin(), u->own_chain.end(), "recurse");
    // Each `recurse` frame is ~300 bytes, so an 8 KiB copy holds more than 20 of them.
    CHECK(recursions > 20);
    ++deep;
  }
  CHECK(deep > 0);
}

TEST_CASE("a second thread unwinds to its start routine's libc caller") {
  check_phase_reaches(Phase::kThread, {"thread_body"});
  CHECK(check_chain_from(Phase::kThread, "thread_work", {"thread_work", "thread_body"}) > 0);
  for (const Unwound* u : fixture().phase(Phase::kThread)) {
    // Beyond thread_body: glibc's start_thread and clone3, whose CFI ends the chain.
    CHECK(u->names.back() != "thread_body");
  }
}

TEST_CASE("samples in the vdso unwind with CFI read from the vdso image") {
  check_phase_reaches(Phase::kVdso, {"phase_vdso", "main"});
  CHECK(count_frame0_in_module(Phase::kVdso, "[vdso]") > 0);
}

TEST_CASE("callbacks from libc's qsort unwind through libc's frames") {
  check_phase_reaches(Phase::kQsort, {"phase_qsort", "main"});
  CHECK(check_chain_from(Phase::kQsort, "compare_ints", {"compare_ints", "phase_qsort", "main"}) >
        0);
}

TEST_CASE("a warm rule cache gives the same frames as a cold one") {
  auto& warm = fixture().unwinder();
  const auto& run = snapshot_run();
  size_t checked = 0;
  for (size_t i = 0; i < run.samples.size(); i += 7) {
    recorder::LocalFiles files;
    CfiUnwinder cold(files);
    UnwindResult a;
    UnwindResult b;
    cold.unwind(run.samples[i].regs, run.samples[i].memory(), run.space, a);
    warm.unwind(run.samples[i].regs, run.samples[i].memory(), run.space, b);
    CHECK(a.frames == b.frames);
    CHECK(a.stop == b.stop);
    ++checked;
  }
  CHECK(checked > 10);
  const auto* stats = warm.rule_cache();
  REQUIRE(stats != nullptr);
  CHECK(stats->stats().pc_hits > stats->stats().cfi_queries);
}

TEST_CASE("frame pointers alone lose the callers of frameless code that CFI recovers") {
  sprof::unwind::FramePointerUnwinder fp;
  size_t cfi_reached_main = 0;
  size_t fp_reached_main = 0;
  SymbolLookup symbols(snapshot_run().space);
  for (const Unwound* u : fixture().phase(Phase::kLibm)) {
    UnwindResult r;
    fp.unwind(u->sample->regs, u->sample->memory(), snapshot_run().space, r);
    REQUIRE_FALSE(r.frames.empty());
    CHECK(r.frames[0] == u->result.frames[0]);
    for (const auto& frame : r.frames) {
      if (symbols.name_of(frame.lookup_address()) == "main") ++fp_reached_main;
    }
    if (!u->own_chain.empty() && u->own_chain.back() == "main") ++cfi_reached_main;
  }
  CHECK(cfi_reached_main > fp_reached_main);
}

}  // namespace sprof::test
