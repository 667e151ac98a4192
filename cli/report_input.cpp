#include "report_input.hpp"

#include <cstdio>

#include "exit_codes.hpp"
#include "perf_data_input.hpp"
#include "self_contained.hpp"
#include "sprof/profile/profile_file.hpp"
#include "sprof/profile/profile_reader.hpp"
#include "sprof/report/heap_weights.hpp"
#include "sprof/report/load.hpp"

namespace sprof::cli {

namespace {

// A Gecko profile, read or imported, named from the local binaries.
Result<report::ReportProfile> name_gecko_profile(const profile::Profile& gecko,
                                                 const ProfileSelection& selection) {
  const auto symbolicator = symbolicator_for(gecko, selection.symbols);
  return report::report_profile_from_gecko(gecko, *symbolicator, {selection.include_idle});
}

Result<report::ReportProfile> read_report_profile(const ProfileSelection& selection) {
  SPROF_TRY(ProfileInput input, read_profile_input(selection.input, selection.symbols));
  if (const auto* json = std::get_if<ProcessedJson>(&input)) {
    return report::read_processed_profile(json->text);
  }
  return name_gecko_profile(std::get<profile::Profile>(input), selection);
}

}  // namespace

Result<ProfileInput> read_profile_input(const std::string& path, const SymbolSources& symbols) {
  if (looks_like_perf_data(path)) {
    SPROF_TRY(profile::Profile imported, import_perf_data_file(path, symbols));
    return ProfileInput(std::move(imported));
  }
  SPROF_TRY(std::string json, profile::read_profile_json(path));
  switch (profile::detect_profile_format(json)) {
    case profile::ProfileFormat::kUnknown:
      return fail(Errc::kUnsupported,
                  "not a profile (no complete JSON object with meta.version: another kind of file, "
                  "or cut short)");
    case profile::ProfileFormat::kProcessed: return ProfileInput(ProcessedJson{std::move(json)});
    case profile::ProfileFormat::kGecko: break;
  }
  // The Gecko text goes once parsed: it is not needed while symbols are built.
  SPROF_TRY(profile::Profile gecko, profile::read_gecko_json(json));
  return ProfileInput(std::move(gecko));
}

Result<std::unique_ptr<OpenedProfile>> open_profile(const ProfileSelection& selection) {
  auto opened = std::make_unique<OpenedProfile>();
  SPROF_TRY(opened->profile, read_report_profile(selection));
  if (opened->profile.threads.empty())
    return fail(Errc::kInvalidArgument, "the profile has no threads");
  SPROF_TRY(opened->threads,
            report::select_threads(opened->profile, {selection.process, selection.thread}));
  // A heap report needs allocation rows (report::build_heap_report says when there are none).
  if (selection.allocations) return opened;
  uint64_t with_stacks = 0;
  for (const report::ReportThread* t : opened->threads)
    with_stacks += t->samples - t->samples_without_stack;
  if (with_stacks == 0) {
    return fail(Errc::kInvalidArgument,
                "no samples with a stack in the selected threads (off-CPU ones: --include-idle)");
  }
  return opened;
}

Result<std::unique_ptr<OpenedProfile>> open_profile_stacks(ProfileSelection selection,
                                                           HeapView heap) {
  if (heap == HeapView::kNone) return open_profile(selection);
  selection.allocations = true;
  SPROF_TRY(std::unique_ptr<OpenedProfile> opened, open_profile(selection));
  const auto weight =
      heap == HeapView::kRetained ? report::HeapWeight::kRetained : report::HeapWeight::kAllocated;
  SPROF_TRY(opened->heap_bytes, report::use_heap_weights(opened->profile, opened->threads, weight));
  return opened;
}

int report_open_error(const ProfileSelection& selection, const Error& error) {
  std::fprintf(stderr, "sprof: %s: %s\n", selection.input.c_str(), error.message.c_str());
  switch (error.code) {
    case Errc::kMalformed:
    case Errc::kTooLarge:
    case Errc::kIo:
    case Errc::kInternal: return kExitFailure;
    default: return kExitUsage;
  }
}

}  // namespace sprof::cli
