#include "sprof/perfdata/perf_data_import.hpp"

#include <algorithm>
#include <deque>
#include <memory>

#include "round_reader.hpp"
#include "sprof/convert/kernel_library.hpp"
#include "sprof/convert/module_cache.hpp"
#include "sprof/convert/profile_converter.hpp"
#include "sprof/convert/source_description.hpp"
#include "sprof/elf/kernel_image.hpp"
#include "sprof/perf/event_attr.hpp"
#include "sprof/perfdata/event_choice.hpp"
#include "sprof/perfdata/import_meta.hpp"
#include "sprof/perfdata/perf_data_file.hpp"
#include "sprof/perfdata/process_filter.hpp"
#include "sprof/perfdata/start_snapshot.hpp"

namespace sprof::perfdata {

const char* start_time_source_name(StartTimeSource s) {
  switch (s) {
    case StartTimeSource::kClockData: return "clock data";
    case StartTimeSource::kFileTime: return "file time";
    case StartTimeSource::kUnknown: break;
  }
  return "unknown";
}

namespace {

// Records of the kernel itself (its text and modules) name no process: pid -1.
constexpr uint32_t kKernelPid = 0xFFFFFFFFu;

// The kernel lib from the kernel text's MMAP record, described as a live recording describes it
// from kallsyms (the text rounded out to pages).
profile::Library kernel_library(const perf::Mmap2Record& text, const std::optional<BuildId>& id) {
  return convert::kernel_library(
      elf::kernel_image_spanning(text.addr, text.addr + text.len, id.value_or(BuildId())));
}

bool is_system_wide(const std::vector<int64_t>& thread_map) {
  return thread_map.size() == 1 && thread_map.front() == -1;
}

class Importer {
 public:
  Importer(ByteSource& bytes, PerfDataFile file, convert::HostFiles& local,
           const ImportOptions& options)
      : bytes_(bytes),
        file_(std::move(file)),
        checked_(local, build_ids_),
        modules_(checked_),
        filter_(options.pids, options.names),
        options_(options) {
    for (const auto& entry : file_.features.build_ids) build_ids_.add(entry);
  }

  Result<ImportedProfile> run() {
    SPROF_TRY(ChosenEvents chosen, choose_events(file_.events));
    SPROF_TRY(perf::EventTable table, perf::EventTable::create(chosen.specs));
    for (size_t i = 0; i < file_.events.size(); ++i) {
      for (uint64_t id : file_.events[i].ids) table.add_id(id, chosen.file_index_to_event[i]);
    }
    description_.events = table.specs();
    DataSectionSource source(bytes_, file_.header.data, std::move(table), options_.reading);
    source_ = &source;
    {
      RoundReader reader(source);
      for (auto batch = reader.next(); !batch.empty(); batch = reader.next()) {
        for (RoundReader::Round& round : batch) {
          for (auto& entry : round.side.build_ids) build_ids_.add(std::move(entry));
          if (round.side.thread_map) thread_map_ = std::move(*round.side.thread_map);
          for (perf::Record& r : round.records) on_record(std::move(r));
        }
      }
    }
    if (!converter_) start(pending_.empty() ? 0 : perf::record_time(pending_.front()));
    if (filter_.active() && !kept_any_) {
      return fail(Errc::kNotFound, "no process in " + bytes_.name() + " matches " +
                                       filter_.selection() +
                                       " (its processes: " + filter_.processes_seen() + ")");
    }
    return finish();
  }

 private:
  void on_record(perf::Record&& r) {
    if (auto* m = std::get_if<perf::Mmap2Record>(&r)) {
      if (m->pid == kKernelPid) {
        if (m->filename.rfind(elf::kKernelDebugName, 0) == 0 && !kernel_text_) kernel_text_ = *m;
        return;  // kernel modules: the kernel lib covers the core text only, as live
      }
      if (!m->build_id.empty()) build_ids_.add({m->filename, m->build_id, false});
    }
    if (!filter_.keep(r)) {
      ++report_.filtered_out_records;
      return;
    }
    kept_any_ = true;
    const uint64_t time = perf::record_time(r);
    end_ns_ = std::max(end_ns_, time);
    if (!converter_) {
      pending_.push_back(std::move(r));
      // Records perf synthesized for what existed before recording (comms, mappings) carry no
      // time; the first timestamped record is where the profile starts.
      if (time != 0) start(time);
      return;
    }
    converter_->consume(r);
  }

  // Decides the root process and the time origin, makes the converter and feeds it what waited.
  void start(uint64_t origin_ns) {
    const auto& thread_map = thread_map_;
    system_wide_ = is_system_wide(thread_map) && !filter_.active();
    description_.origin_monotonic_ns = origin_ns;
    description_.origin_wall_ms = wall_ms_at(origin_ns);
    description_.root_pid = system_wide_ ? 0 : root_pid(thread_map);
    description_.logical_cpus = static_cast<int>(file_.features.cpus_online);
    if (!file_.features.arch.empty()) description_.oscpu = "Linux " + file_.features.arch;
    unwinder_ = convert::make_unwinder(description_, checked_);
    // System-wide, what perf found running at the start is a snapshot the converter asks when
    // it meets a task (as live); otherwise it describes the processes recorded, which are
    // registered at once (as live attaching seeds its targets).
    StartSnapshot snapshot;
    convert::ProcAccess proc;
    if (system_wide_) {
      for (const auto& r : pending_) {
        if (perf::record_time(r) == 0) snapshot.add(r);
      }
      proc = snapshot.proc_access();
    }
    convert::ConverterOptions options =
        convert::converter_options(description_, std::move(proc), unwinder_.get());
    options.sample_spill = options_.sample_spill;
    converter_.emplace(std::move(options), modules_);
    if (system_wide_) converter_->seed_process(0, {0});  // first: the top-level process
    for (const auto& r : pending_) {
      if (!system_wide_ || perf::record_time(r) != 0) converter_->consume(r);
    }
    pending_.clear();
  }

  // The process the profile is about: the one perf record launched or attached to (its thread
  // map), else the first one recorded.
  uint32_t root_pid(const std::vector<int64_t>& thread_map) const {
    for (const auto& r : pending_) {
      const uint32_t pid = record_pid(r);
      const auto listed = [&](uint32_t id) {
        return std::find(thread_map.begin(), thread_map.end(), int64_t{id}) != thread_map.end();
      };
      if (filter_.active() || listed(pid)) return pid;
      if (const auto* s = std::get_if<perf::SampleRecord>(&r); s && listed(s->id.tid)) return pid;
      if (const auto* c = std::get_if<perf::CommRecord>(&r); c && listed(c->tid)) return pid;
    }
    return pending_.empty() ? 0 : record_pid(pending_.front());
  }

  double wall_ms_at(uint64_t origin_ns) {
    const auto& attr = description_.events.front().attr;
    const auto& clock = file_.features.clock;
    if (clock && attr.use_clockid && static_cast<int32_t>(attr.clockid) == clock->clockid) {
      report_.start_time = StartTimeSource::kClockData;
      const auto delta = static_cast<double>(static_cast<int64_t>(origin_ns - clock->clock_ns));
      return (static_cast<double>(clock->wall_ns) + delta) / 1e6;
    }
    if (const auto mtime = bytes_.modified_wall_ms()) {
      report_.start_time = StartTimeSource::kFileTime;
      const uint64_t last = file_.features.last_sample_ns.value_or(origin_ns);
      return *mtime - static_cast<double>(last > origin_ns ? last - origin_ns : 0) / 1e6;
    }
    report_.start_time = StartTimeSource::kUnknown;
    return 0;
  }

  Result<ImportedProfile> finish() {
    if (kernel_text_)
      converter_->set_kernel_library(kernel_library(*kernel_text_, build_ids_.kernel()));
    ImportedProfile out;
    out.profile = converter_->finish(std::max(end_ns_, description_.origin_monotonic_ns));
    out.stats = converter_->stats();
    report_.data = source_->stats();
    report_.stream = source_->stream_stats();
    out.stats.malformed_records += report_.stream.malformed_records;
    out.stats.unknown_records += report_.stream.skipped_records;
    for (const auto& [type, n] : report_.data.unknown_by_type) out.stats.unknown_records += n;
    describe_report();
    if (system_wide_) {
      out.profile.meta.product = "sprof: system";
    } else if (!out.profile.processes.empty()) {
      out.profile.meta.product = "sprof: " + out.profile.processes.front().name;
    }
    convert::describe_recording(out.profile.meta, description_, out.stats);
    add_import_meta(out.profile.meta, report_);
    out.report = std::move(report_);
    return out;
  }

  void describe_report() {
    const auto& f = file_.features;
    report_.file = bytes_.name();
    report_.pipe_mode = file_.header.pipe_mode;
    report_.perf_version = f.perf_version;
    report_.hostname = f.hostname;
    report_.os_release = f.os_release;
    report_.arch = f.arch;
    report_.command_line = joined_command_line(f);
    for (const auto& spec : description_.events) {
      report_.event_names.push_back(perf::event_name(spec.attr));
    }
    report_.binaries = checked_.checks();
    report_.kernel_build_id = build_ids_.kernel();
    auto& notes = report_.notes;
    notes.insert(notes.end(), file_.header.notes.begin(), file_.header.notes.end());
    notes.insert(notes.end(), f.unreadable.begin(), f.unreadable.end());
    if (report_.data.stopped) {
      notes.push_back("reading stopped: " + *report_.data.stopped + "; " +
                      std::to_string(report_.data.unread_bytes) + " bytes after it were skipped");
    }
    if (report_.data.compressed_records > 0) {
      notes.push_back(std::to_string(report_.data.compressed_records) +
                      " compressed records (perf record -z) were skipped: sprof does not "
                      "decompress them; record without -z");
    }
    if (report_.stream.other_event_samples > 0) {
      notes.push_back(std::to_string(report_.stream.other_event_samples) +
                      " samples of other events than " + report_.event_names.front() +
                      " were skipped (one profile shows one event)");
    }
    if (report_.start_time == StartTimeSource::kFileTime) {
      notes.push_back(
          "perf's clock has no wall-clock reference in the file: the start time is "
          "estimated from the file's modification time (record with "
          "`-k CLOCK_MONOTONIC` for an exact one)");
    }
  }

  ByteSource& bytes_;
  PerfDataFile file_;
  RecordedBuildIds build_ids_;
  BuildIdCheckedFiles checked_;
  convert::ModuleCache modules_;
  ProcessFilter filter_;
  const ImportOptions& options_;
  DataSectionSource* source_ = nullptr;
  std::vector<int64_t> thread_map_;  // PERF_RECORD_THREAD_MAP's pids, once read
  convert::SourceDescription description_;
  std::unique_ptr<sprof::unwind::Unwinder> unwinder_;
  std::optional<convert::ProfileConverter> converter_;
  std::vector<perf::Record> pending_;
  std::optional<perf::Mmap2Record> kernel_text_;
  uint64_t end_ns_ = 0;
  bool kept_any_ = false;
  bool system_wide_ = false;
  ImportReport report_;
};

}  // namespace

Result<ImportedProfile> import_perf_data(ByteSource& bytes, convert::HostFiles& local_files,
                                         const ImportOptions& options) {
  SPROF_TRY(PerfDataFile file, open_perf_data(bytes));
  if (file.features.compressed) {
    return fail(Errc::kUnsupported,
                bytes.name() +
                    ": its records are compressed (perf record -z), which sprof does "
                    "not decompress; record without -z");
  }
  Importer importer(bytes, std::move(file), local_files, options);
  return importer.run();
}

}  // namespace sprof::perfdata
