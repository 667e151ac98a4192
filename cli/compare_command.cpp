// `sprof compare`: the Firefox Profiler's compare view takes one thread of each profile, by its
// index in the file's `threads`. Only in a processed (self-contained) file is that index the one
// the front end uses: it orders a Gecko file's threads itself while processing it. So a Gecko file
// or a perf.data is first made self-contained, as `sprof symbolicate` would, into a scratch folder
// that is removed when sprof ends.
#include "compare_command.hpp"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <numeric>
#include <variant>

#include "exit_codes.hpp"
#include "report_input.hpp"
#include "self_contained.hpp"
#include "serve.hpp"

namespace sprof::cli {

namespace {

// A private folder under $TMPDIR (else /tmp), removed with what it holds.
class ScratchDir {
 public:
  static Result<ScratchDir> create() {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/sprof-compare-XXXXXX";
    if (mkdtemp(pattern.data()) == nullptr) {
      return Error::from_errno("cannot make a scratch folder " + pattern);
    }
    return ScratchDir(std::move(pattern));
  }
  ScratchDir(ScratchDir&& other) noexcept : path_(std::exchange(other.path_, {})) {}
  ScratchDir& operator=(ScratchDir&&) = delete;
  ~ScratchDir() {
    std::error_code ignored;
    if (!path_.empty()) std::filesystem::remove_all(path_, ignored);
  }
  const std::string& path() const { return path_; }

 private:
  explicit ScratchDir(std::string path) : path_(std::move(path)) {}
  std::string path_;
};

// `input` itself when it is self-contained; else its self-contained form, written to `scratch`.
Result<std::string> servable_form(const std::string& input, const SymbolSources& symbols,
                                  const ScratchDir& scratch, const char* name) {
  SPROF_TRY(const ProfileInput read, read_profile_input(input, symbols));
  const auto* gecko = std::get_if<profile::Profile>(&read);
  if (gecko == nullptr) return input;  // self-contained already
  const std::string path = scratch.path() + "/" + name + ".json.gz";
  const auto symbolicator = symbolicator_for(*gecko, symbols);
  if (!embed_symbols(*gecko, *symbolicator, path, 0, symbols)) {
    return fail(Errc::kIo, "cannot write its self-contained form to " + path);
  }
  return path;
}

struct ChosenThread {
  uint32_t index = 0;  // in the file's threads
  std::string name;
  std::string label;  // "name (tid)"
};

uint64_t cpu_weight(const report::ReportThread& t) {
  return std::accumulate(t.stack_weight.begin(), t.stack_weight.end(), uint64_t{0});
}

// Among the threads --process and --thread select, the one with the most weight on the CPU; when
// `same_name_as` is given (the base's thread, for the new profile), preferably one of that name,
// so that a program's "worker" is compared with its "worker" by default.
Result<ChosenThread> chosen_thread(const std::string& path, const CompareCommandOptions& options,
                                   const std::string* same_name_as) {
  ProfileSelection selection;
  selection.input = path;
  selection.process = options.process;
  selection.thread = options.thread;
  selection.symbols = options.serve.symbols;
  SPROF_TRY(const std::unique_ptr<OpenedProfile> opened, open_profile(selection));
  const auto busiest = [&](bool named_only) -> const report::ReportThread* {
    const report::ReportThread* best = nullptr;
    for (const report::ReportThread* t : opened->threads) {
      if (named_only && t->name != *same_name_as) continue;
      if (best == nullptr || cpu_weight(*t) > cpu_weight(*best)) best = t;
    }
    return best;
  };
  const report::ReportThread* chosen = same_name_as != nullptr ? busiest(true) : nullptr;
  if (chosen == nullptr) chosen = busiest(false);
  return ChosenThread{static_cast<uint32_t>(chosen - opened->profile.threads.data()), chosen->name,
                      report::thread_label(*chosen)};
}

}  // namespace

int run_compare_command(const CompareCommandOptions& options) {
  auto scratch = ScratchDir::create();
  if (!scratch) {
    std::fprintf(stderr, "sprof: %s\n", scratch.error().message.c_str());
    return kExitFailure;
  }
  std::string served[2];
  ChosenThread threads[2];
  const std::string* inputs[2] = {&options.base, &options.next};
  const char* names[2] = {"base", "new"};
  for (int i = 0; i < 2; ++i) {
    ProfileSelection for_errors;
    for_errors.input = *inputs[i];
    auto path = servable_form(*inputs[i], options.serve.symbols, *scratch, names[i]);
    if (!path) return report_open_error(for_errors, path.error());
    auto thread = chosen_thread(*path, options, i == 0 ? nullptr : &threads[0].name);
    if (!thread) return report_open_error(for_errors, thread.error());
    served[i] = std::move(*path);
    threads[i] = std::move(*thread);
  }
  std::fprintf(stderr, "sprof: comparing %s of %s with %s of %s\n", threads[0].label.c_str(),
               options.base.c_str(), threads[1].label.c_str(), options.next.c_str());
  return serve_compared_profiles(served[0], {served[1], threads[0].index, threads[1].index},
                                 options.serve);
}

}  // namespace sprof::cli
