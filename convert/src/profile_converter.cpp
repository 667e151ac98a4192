#include "sprof/convert/profile_converter.hpp"

#include <algorithm>

#include "sprof/convert/allocation_wrappers.hpp"
#include "sprof/convert/marker_schemas.hpp"

namespace sprof::convert {

namespace {

// perf callchains interleave context markers (PERF_CONTEXT_KERNEL, _USER, ...) with addresses;
// every value >= (u64)-4095 is such a marker, never a frame.
constexpr uint64_t kPerfContextMax = static_cast<uint64_t>(-4095);
constexpr uint64_t kPerfContextKernel = static_cast<uint64_t>(-128);
constexpr uint64_t kPerfContextUser = static_cast<uint64_t>(-512);

}  // namespace

ProfileConverter::ProfileConverter(ConverterOptions options, ModuleCache& modules)
    : options_(std::move(options)),
      modules_(modules),
      lifecycle_(options_.root_pid),
      marker_files_(modules.files()),
      jit_(JitLibraries::for_recording(options_.origin_wall_ms, modules.files())),
      allocator_frames_(modules.files(), is_allocation_wrapper),
      deallocator_frames_(modules.files(), is_deallocation_wrapper) {
  stats_.event_name = options_.event_name;
  profile_.meta.marker_schema = sprof_marker_schemas();
  profile_.meta.start_time_ms = options_.origin_wall_ms;
  profile_.meta.start_time_monotonic_ns = options_.origin_monotonic_ns;
  profile_.meta.interval_ms = options_.interval_ms;
  profile_.meta.product = options_.product;
  profile_.meta.profiling_start_ms = 0.0;
  if (options_.heap) heap_.emplace(options_.heap->sample_interval_bytes, stats_.heap);
  if (options_.per_cpu_threads) {
    per_cpu_.emplace(options_.origin_monotonic_ns, options_.cswitch_markers);
  }
}

double ProfileConverter::to_ms(uint64_t ns) const {
  // Records from before the origin (rare: a CPU's clock read raced the origin) clamp to 0.
  if (ns <= options_.origin_monotonic_ns) return 0;
  return static_cast<double>(ns - options_.origin_monotonic_ns) / 1e6;
}

size_t ProfileConverter::new_image(uint32_t pid, const std::string& name, uint64_t time_ns) {
  profile::Process proc;
  proc.pid = pid;
  proc.name = name;
  proc.process_type = pid == options_.root_pid ? "default" : "child";
  (void)time_ns;
  profile_.processes.push_back(std::move(proc));
  return profile_.processes.size() - 1;
}

ProfileConverter::ProcessState& ProfileConverter::process(uint32_t pid, uint64_t time_ns) {
  auto it = processes_.find(pid);
  if (it != processes_.end()) return it->second;
  ++stats_.processes;
  ProcessState state;
  std::optional<std::string> comm;
  if (options_.proc.read_comm) comm = options_.proc.read_comm(pid, pid);
  state.name = comm && !comm->empty() ? ProcessName::from_comm(*comm) : ProcessName::unknown(pid);
  if (options_.process_name_args > 0 && options_.proc.read_argv) {
    if (const auto argv = options_.proc.read_argv(pid)) {
      state.name.set_arguments(*argv, options_.process_name_args);
    }
  }
  state.image = new_image(pid, state.name.display(), time_ns);
  return processes_.emplace(pid, std::move(state)).first->second;
}

void ProfileConverter::rename_image(const ProcessState& p) {
  profile::Process& image = profile_.processes[p.image];
  image.name = p.name.display();
  for (auto& t : image.threads) t.process_name = image.name;
}

void ProfileConverter::name_arguments(uint32_t pid, ProcessState& p,
                                      const std::optional<std::vector<std::string>>& argv) {
  if (options_.process_name_args <= 0) return;
  const auto args = argv || !options_.proc.read_argv ? argv : options_.proc.read_argv(pid);
  if (args) p.name.set_arguments(*args, options_.process_name_args);
}

ProfileConverter::ThreadState& ProfileConverter::thread(uint32_t pid, uint32_t tid,
                                                        uint64_t time_ns) {
  auto it = threads_.find(tid);
  if (it != threads_.end() && it->second.pid == pid) return it->second;
  if (it != threads_.end()) threads_.erase(it);  // tid reused by another process
  ProcessState& p = process(pid, time_ns);
  ++stats_.threads;
  profile::Process& image = profile_.processes[p.image];
  profile::Thread t;
  t.pid = pid;
  t.tid = tid;
  t.register_time_ms = to_ms(time_ns);
  t.spill_samples_to(options_.sample_spill);
  t.process_name = p.name.display();
  t.process_type = image.process_type;
  if (tid == pid) {
    // The front end knows a main thread only by the name "GeckoMain": so named, it becomes the
    // process track with its activity graph and shows `processName`
    // (docs/firefox-profiler-format.md, "threads and tables").
    t.name = "GeckoMain";
  } else if (options_.proc.read_comm) {
    t.name = options_.proc.read_comm(pid, tid).value_or(p.name.executable());
  } else {
    t.name = p.name.executable();
  }
  image.threads.push_back(std::move(t));
  ThreadState state{pid, p.image, image.threads.size() - 1};
  return threads_.emplace(tid, state).first->second;
}

profile::Thread& ProfileConverter::profile_thread(const ThreadState& t) {
  return profile_.processes[t.image].threads[t.thread];
}

void ProfileConverter::add_mapping(ProcessState& p, const std::string& path, uint64_t start,
                                   uint64_t end, uint64_t pgoff) {
  walked_stacks_.clear();  // the addresses it knows may now mean other code
  if (path == "[vdso]") {
    p.modules.add(path, Avma{start}, Avma{end}, FileOffset{pgoff}, modules_.vdso_identity(),
                  modules_.vdso_image());
    return;
  }
  // Anonymous and special mappings ([stack], [heap], //anon, memfd:) have no ELF to read; they
  // still go into the map so the unwinder knows the address is not in a file.
  std::shared_ptr<const elf::ModuleIdentity> identity;
  if (!path.empty() && path[0] == '/') identity = modules_.identity(path);
  p.modules.add(path, Avma{start}, Avma{end}, FileOffset{pgoff}, std::move(identity));
}

void ProfileConverter::load_maps_from_proc(uint32_t pid, ProcessState& p) {
  if (p.maps_loaded_from_proc || !options_.proc.read_exec_maps) return;
  p.maps_loaded_from_proc = true;
  for (const auto& m : options_.proc.read_exec_maps(pid)) {
    if (p.name.note_mapped_file(m.path)) rename_image(p);
    if (p.modules.find(m.start) == nullptr) add_mapping(p, m.path, m.start, m.end, m.pgoff);
  }
}

void ProfileConverter::learn_mapping_of(uint64_t user_ip, uint32_t pid, ProcessState& p) {
  // A user address outside every known mapping may be in a library mapped before recording
  // started (attach) or one perf did not report; /proc tells, once per process image.
  if (p.modules.find(user_ip) == nullptr) load_maps_from_proc(pid, p);
}

void ProfileConverter::seed_process(uint32_t pid, const std::vector<uint32_t>& tids) {
  ProcessState& p = process(pid, options_.origin_monotonic_ns);
  load_maps_from_proc(pid, p);
  jit_.note_attached(pid);
  for (uint32_t tid : tids) thread(pid, tid, options_.origin_monotonic_ns);
}

void ProfileConverter::consume(const perf::Record& record) {
  std::visit(
      [this](const auto& r) {
        using T = std::decay_t<decltype(r)>;
        // Allocation records say nothing about scheduling: CPU accounting is perf's alone.
        constexpr bool kHeapRecord = std::is_same_v<T, perf::HeapAllocRecord> ||
                                     std::is_same_v<T, perf::HeapFreeRecord> ||
                                     std::is_same_v<T, perf::HeapAttachRecord>;
        if constexpr (!std::is_same_v<T, perf::SampleRecord> &&
                      !std::is_same_v<T, perf::SwitchRecord> && !kHeapRecord) {
          note_running(r.id);
        }
        if constexpr (std::is_same_v<T, perf::SampleRecord>) {
          on_sample(r);
        } else if constexpr (std::is_same_v<T, perf::HeapAllocRecord>) {
          on_heap_alloc(r);
        } else if constexpr (std::is_same_v<T, perf::HeapFreeRecord>) {
          on_heap_free(r);
        } else if constexpr (std::is_same_v<T, perf::HeapAttachRecord>) {
          on_heap_attach(r);
        } else if constexpr (std::is_same_v<T, perf::RuntimeRecord>) {
          ++stats_.cpu_counts;
          cpu_.counted(r.id.tid, r.id.cpu, r.id.time, r.runtime_ns);
        } else if constexpr (std::is_same_v<T, perf::Mmap2Record>) {
          on_mmap(r);
        } else if constexpr (std::is_same_v<T, perf::CommRecord>) {
          on_comm(r);
        } else if constexpr (std::is_same_v<T, perf::ForkRecord>) {
          on_fork(r);
        } else if constexpr (std::is_same_v<T, perf::ExitRecord>) {
          on_exit(r);
        } else if constexpr (std::is_same_v<T, perf::LostRecord>) {
          stats_.lost_records += r.lost;
          cpu_.forget_ticks();  // lost samples leave gaps that are not stalls
          profile::Marker m;
          m.name = "Lost samples";
          m.start_ms = to_ms(r.id.time);
          m.type = "LostSamples";
          m.fields.push_back({"count", static_cast<int64_t>(r.lost)});
          add_marker_to_root(std::move(m));
        } else if constexpr (std::is_same_v<T, perf::LostSamplesRecord>) {
          stats_.lost_samples += r.lost;
          cpu_.forget_ticks();
        } else if constexpr (std::is_same_v<T, perf::ThrottleRecord>) {
          if (r.throttled) {
            ++stats_.throttle_events;
            cpu_.forget_ticks();  // the thread runs on without samples until unthrottled
            profile::Marker m;
            m.name = "Throttled";
            m.start_ms = to_ms(r.id.time);
            m.type = "Throttle";
            add_marker_to_root(std::move(m));
          }
        }
        if constexpr (std::is_same_v<T, perf::SwitchRecord>) on_switch(r);
      },
      record);
}

void ProfileConverter::consume_all(RecordSource& source) {
  const perf::RecordSink sink = [this](perf::Record&& r) { consume(r); };
  while (source.read_available(sink)) {
  }
  source.flush_all(sink);
}

void ProfileConverter::add_marker_to_root(profile::Marker marker) {
  // Recording-level events belong to the root process's main thread, which always exists once
  // anything was recorded.
  auto it = threads_.find(options_.root_pid);
  if (it == threads_.end()) return;
  profile_thread(it->second).add_marker(std::move(marker));
}

void ProfileConverter::on_mmap(const perf::Mmap2Record& m) {
  // The first file an image maps is its executable (mapped by exec): it may complete the name.
  if (auto known = processes_.find(m.pid); known != processes_.end()) {
    if (known->second.name.note_mapped_file(m.filename)) rename_image(known->second);
  }
  // Marker files are data mappings (attr.mmap_data); jitdumps are mapped executable.
  if (marker_files_.note_mmap(m.filename) || jit_.note_mmap(m.pid, m.filename)) return;
  if (!m.executable) return;
  ProcessState& p = process(m.pid, m.id.time);
  add_mapping(p, m.filename, m.addr, m.addr + m.len, m.pgoff);
}

void ProfileConverter::on_comm(const perf::CommRecord& c) {
  if (c.exec) {
    end_heap_image(c.pid, c.id.time);  // the old program's memory is gone
    // Nor do the old program's stacks describe the new one's.
    if (auto t = threads_.find(c.tid); t != threads_.end()) t->second.stitcher.clear();
    // Read while the records are fresh: the process usually still runs the new program.
    const auto argv = options_.proc.read_argv ? options_.proc.read_argv(c.pid) : std::nullopt;
    ProcessState& p = process(c.pid, c.id.time);
    profile::Process& old_image = profile_.processes[p.image];
    const bool old_is_empty = std::all_of(
        old_image.threads.begin(), old_image.threads.end(), [](const profile::Thread& t) {
          return t.samples().empty() && t.native_allocations().empty();
        });
    // Snapshot the old image's libraries: it keeps the address space it had.
    old_image.libs = p.modules.libraries();
    p.modules = ModuleMap();
    p.maps_loaded_from_proc = false;
    walked_stacks_.clear();
    p.name = ProcessName::from_comm(c.comm);
    name_arguments(c.pid, p, argv);
    if (old_is_empty) {
      // Launched commands are enabled at exec, so the pre-exec image holds nothing: reuse it.
      old_image.libs.clear();
      rename_image(p);
    } else {
      old_image.shutdown_time_ms = to_ms(c.id.time);
      for (auto& t : old_image.threads) {
        if (!t.unregister_time_ms) t.unregister_time_ms = to_ms(c.id.time);
      }
      p.image = new_image(c.pid, p.name.display(), c.id.time);
      // exec leaves a single thread, with the process's pid as its tid.
      for (auto it = threads_.begin(); it != threads_.end();) {
        it = it->second.pid == c.pid ? threads_.erase(it) : std::next(it);
      }
      --stats_.threads;  // the exec'ing thread is counted again below
    }
    thread(c.pid, c.tid, c.id.time);
    if (heap_) heap_->note_exec(c.pid, p.image, c.comm);
    mark_exec(c, argv);
    return;
  }
  ThreadState& t = thread(c.pid, c.tid, c.id.time);
  profile::Thread& pt = profile_thread(t);
  if (c.tid != c.pid) {
    pt.name = c.comm;
    return;
  }
  // The main thread keeps the GeckoMain name. A process is named by what it exec'd, not by what
  // its main thread later calls itself, unless nothing named it yet.
  ProcessState& p = processes_.at(c.pid);
  if (!p.name.known()) {
    p.name = ProcessName::from_comm(c.comm);
    name_arguments(c.pid, p, std::nullopt);
    rename_image(p);
  }
}

void ProfileConverter::on_fork(const perf::ForkRecord& f) {
  if (f.pid != f.ppid && !processes_.contains(f.pid)) {
    // A new process starts as a copy of its parent: same name, same mappings.
    auto parent = processes_.find(f.ppid);
    ++stats_.processes;
    ProcessState state;
    if (parent != processes_.end()) {
      state.name = parent->second.name;
      state.modules = parent->second.modules;
    } else {
      state.name = ProcessName::unknown(f.pid);
    }
    state.image = new_image(f.pid, state.name.display(), f.time);
    processes_.emplace(f.pid, std::move(state));
  }
  thread(f.pid, f.tid, f.time);
  mark_fork(f);
}

void ProfileConverter::on_exit(const perf::ExitRecord& e) {
  auto it = threads_.find(e.tid);
  if (it == threads_.end() || it->second.pid != e.pid) return;
  close_thread_activity(it->second, e.tid, e.time);
  profile::Thread& t = profile_thread(it->second);
  t.unregister_time_ms = to_ms(e.time);
  mark_exit(e, it->second);
  if (e.tid == e.pid) {
    profile_.processes[it->second.image].shutdown_time_ms = to_ms(e.time);
    end_heap_image(e.pid, e.time);
  }
}

void ProfileConverter::collect_frames(const perf::SampleRecord& s, ProcessState& p,
                                      ThreadState& ts) {
  frames_.clear();
  // Kernel part of the callchain (leaf first), and the user part if we use frame pointers.
  bool in_user = false;
  bool user_from_callchain = options_.unwinder == nullptr || s.regs_user.empty();
  std::optional<uint64_t> user_ip;  // the first user frame: where the user stack starts
  for (uint64_t addr : s.callchain) {
    if (addr >= kPerfContextMax) {
      if (addr == kPerfContextKernel) in_user = false;
      if (addr == kPerfContextUser) in_user = true;
      continue;
    }
    if (!in_user) {
      frames_.emplace_back(addr, profile::Category::kKernel);
    } else if (user_from_callchain) {
      if (!user_ip) user_ip = addr;
      frames_.emplace_back(addr, profile::Category::kUser);
    }
  }
  if (user_from_callchain) {
    // Without a callchain a user-mode sample still has its own PC.
    if (s.callchain.empty() && !s.kernel_mode) {
      user_ip = s.ip;
      frames_.emplace_back(s.ip, profile::Category::kUser);
    }
    if (user_ip) learn_mapping_of(*user_ip, s.id.pid, p);
    if (options_.heap) drop_interposer_frames(p.modules, !s.context_switch_sample);
    return;
  }
  // The unwinder starts at the sampled registers' PC: that is the leaf, once. (perf record
  // --call-graph dwarf asks for no user callchain, so its user-mode samples come with an empty
  // one; pushing s.ip here too repeated every leaf under itself.)

  const auto regs = unwind::UserRegs::from_perf(s.sample_regs_user, s.regs_user);
  const unwind::StackMemory stack(regs.sp(), s.stack_user);
  learn_mapping_of(regs.ip(), s.id.pid, p);
  options_.unwinder->unwind(regs, stack, p.modules, unwind_result_);
  if (ts.stitcher.complete(unwind_result_)) ++stats_.stitched_samples;
  ++stats_.unwound_samples;
  if (unwind_result_.frame_pointer_steps > 0) ++stats_.frame_pointer_fallback_samples;
  const auto stop = static_cast<size_t>(unwind_result_.stop);
  if (stop < stats_.unwind_stops.size()) ++stats_.unwind_stops[stop];
  for (const auto& f : unwind_result_.frames) {
    frames_.emplace_back(f.address.value, profile::Category::kUser);
  }
  if (options_.heap) drop_interposer_frames(p.modules, !s.context_switch_sample);
}

void ProfileConverter::on_sample(const perf::SampleRecord& s) {
  ThreadState& ts = thread(s.id.pid, s.id.tid, s.id.time);
  if (s.context_switch_sample) {
    keep_switch_sample(ts, s);  // unwound only if the thread blocks (on_switch)
    return;
  }
  record_sample(ts, intern_sample_stack(ts, s), s);
}

std::optional<uint32_t> ProfileConverter::intern_sample_stack(ThreadState& ts,
                                                              const perf::SampleRecord& s) {
  ProcessState& p = processes_.at(s.id.pid);
  collect_frames(s, p, ts);

  profile::Thread& t = profile_thread(ts);
  // An off-CPU stack's leaf is an Idle frame (docs/firefox-profiler-format.md, "Off-CPU samples").
  if (s.context_switch_sample && !frames_.empty())
    frames_.front().second = profile::Category::kIdle;
  // Interning is deterministic, so the prefix this stack shares with the thread's previous one
  // has the same stack indexes: start after it.
  InternedStack& last = ts.last_stack;
  const size_t depth = frames_.size();
  size_t shared = 0;
  while (shared < depth && shared < last.frames.size() &&
         last.frames[shared] == frames_[depth - 1 - shared]) {
    ++shared;
  }
  last.frames.resize(shared);
  last.stacks.resize(shared);
  std::optional<uint32_t> stack;
  if (shared > 0) stack = last.stacks.back();
  for (size_t i = shared; i < depth; ++i) {
    const auto& [address, category] = frames_[depth - 1 - i];
    stack = t.intern_stack(stack, t.intern_address_frame(address, category));
    last.frames.emplace_back(address, category);
    last.stacks.push_back(*stack);
  }
  return stack;
}

profile::Profile ProfileConverter::finish(uint64_t end_ns) {
  const double end_ms = to_ms(end_ns);
  profile_.meta.profiling_end_ms = end_ms;
  close_all_activity(end_ns);
  add_recorded_markers(end_ns);
  if (heap_) heap_->finish(profile_, end_ms);
  complete_libs_and_times(profile_);
  if (per_cpu_) per_cpu_->finish(profile_);  // after every process has its libs
  stats_.unreadable_modules = modules_.unreadable_files();
  return std::move(profile_);
}

void ProfileConverter::complete_libs_and_times(profile::Profile& profile) const {
  profile.meta.has_cpu_deltas = options_.period_is_cpu_ns || options_.switch_records;
  for (const auto& [pid, p] : processes_) {
    profile.processes[p.image].libs = p.modules.libraries();
    add_jit_libraries(pid, profile.processes[p.image]);
  }
  for (auto& image : profile.processes) {
    if (options_.kernel_lib) image.libs.push_back(*options_.kernel_lib);
    for (auto& t : image.threads) {
      if (t.unregister_time_ms && *t.unregister_time_ms < t.register_time_ms) {
        t.unregister_time_ms = t.register_time_ms;
      }
    }
  }
}

}  // namespace sprof::convert
