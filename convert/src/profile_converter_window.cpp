// The flight recorder's side of the converter (flight_window.hpp): evicting what aged out of
// the window, and cutting a profile of the window without disturbing the recording.
#include "sprof/convert/profile_converter.hpp"

namespace sprof::convert {

void ProfileConverter::evict_before(uint64_t start_ns) {
  evicted_ += trim_before(profile_, to_ms(start_ns));
}

ProfileConverter::Window ProfileConverter::window(uint64_t start_ns, uint64_t end_ns) const {
  const double start_ms = to_ms(start_ns);
  Window w{profile_, evicted_};
  add_file_markers_to(w.profile);
  complete_libs_and_times(w.profile);
  // Between evictions the profile holds up to an eighth of a window more than the window.
  w.dropped += trim_before(w.profile, start_ms);
  drop_ended_before(w.profile, start_ms);
  w.profile.meta.profiling_start_ms = start_ms;
  w.profile.meta.profiling_end_ms = to_ms(end_ns);
  return w;
}

void ProfileConverter::add_file_markers_to(profile::Profile& window) const {
  // All of them, so that those before the window are trimmed and counted as dropped, as
  // `finish` followed by the last window's trim counts them.
  marker_files_.read_all([&](const MarkerFiles::File& file, const MarkerLine& line) {
    auto it = threads_.find(file.tid);
    if (it == threads_.end() || it->second.pid != file.pid) it = threads_.find(file.pid);
    if (it == threads_.end() || it->second.pid != file.pid) return;
    const ThreadState& t = it->second;
    window.processes[t.image].threads[t.thread].add_marker(
        user_marker(line, to_ms(line.start_ns), to_ms(line.end_ns)));
  });
}

}  // namespace sprof::convert
