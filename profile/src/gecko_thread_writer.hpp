// Writes one `Thread` as a Gecko thread object (docs/firefox-profiler-format.md, "threads and
// tables" to "markers"): its string, frame and stack tables as interned, samples sorted by time,
// and markers with payloads.
#pragma once

#include "sprof/core/json_writer.hpp"
#include "sprof/profile/profile.hpp"

namespace sprof::profile::detail {

// `process` supplies processName, processType and pid where the thread leaves them unset.
void write_gecko_thread(JsonWriter& w, const Thread& thread, const Process& process);

}  // namespace sprof::profile::detail
