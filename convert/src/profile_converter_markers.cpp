// The converter's markers (process and thread lifecycle, user marker files) and JIT libs. The
// logic lives in lifecycle_markers.*, marker_files.* and jit_libraries.*; this file only places
// their results in the profile.
#include "sprof/convert/profile_converter.hpp"

namespace sprof::convert {

void ProfileConverter::mark_fork(const perf::ForkRecord& f) {
  ThreadState& t = thread(f.pid, f.tid, f.time);
  profile_thread(t).add_marker(
      lifecycle_.on_fork(f, processes_.at(f.pid).name.display(), to_ms(f.time)));
}

void ProfileConverter::mark_exec(const perf::CommRecord& c,
                                 const std::optional<std::vector<std::string>>& argv) {
  const std::optional<std::string> command_line =
      argv ? std::optional<std::string>(join_arguments(*argv)) : std::nullopt;
  ThreadState& t = thread(c.pid, c.tid, c.id.time);
  profile_thread(t).add_marker(lifecycle_.on_exec(c, command_line, to_ms(c.id.time)));
}

void ProfileConverter::mark_exit(const perf::ExitRecord& e, const ThreadState& t) {
  if (auto marker = lifecycle_.on_exit(e, to_ms(e.time))) {
    profile_thread(t).add_marker(std::move(*marker));
  }
}

void ProfileConverter::add_recorded_markers(uint64_t end_ns) {
  if (auto root_exit = lifecycle_.finish_root_exit(to_ms(end_ns))) {
    add_marker_to_root(std::move(*root_exit));
  }
  marker_files_.read_all([this, end_ns](const MarkerFiles::File& file, const MarkerLine& line) {
    // The thread the file names if it is known in that process, else the process's main thread.
    auto it = threads_.find(file.tid);
    const bool known = it != threads_.end() && it->second.pid == file.pid;
    ThreadState& t = known ? it->second : thread(file.pid, file.pid, end_ns);
    profile_thread(t).add_marker(user_marker(line, to_ms(line.start_ns), to_ms(line.end_ns)));
  });
}

void ProfileConverter::add_jit_libraries(uint32_t pid, profile::Process& process) const {
  const std::vector<profile::Library> added = jit_.add_libraries(pid, process.libs);
  for (profile::Thread& t : process.threads) mark_jit_frames(added, t);
}

}  // namespace sprof::convert
