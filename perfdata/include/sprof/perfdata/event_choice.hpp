// sprof/perfdata/event_choice.hpp
//
// Which of a file's events the profile is made of. The first clock-like event is the sampling
// event (the converter's event 0: its rate is the profile's interval); a context-switches event
// sampled at every switch (`-e cs -c 1`) gives off-CPU stacks as in a live recording; perf's
// side-band "dummy" event (which carries COMM/MMAP/SWITCH records for -a and --switch-events) and
// any other event keep their non-sample records but their samples are counted and skipped, since
// one profile shows one kind of sample.
#pragma once

#include <cstddef>
#include <vector>

#include "sprof/core/result.hpp"
#include "sprof/perf/event_table.hpp"
#include "sprof/perfdata/file_events.hpp"

namespace sprof::perfdata {

struct ChosenEvents {
  std::vector<sprof::perf::EventSpec> specs;  // [0] is the sampling event
  std::vector<size_t> file_index_to_event;    // file's event i is specs[map[i]]
};

// Errc::kUnsupported when the file has no event that samples (only side-band events).
Result<ChosenEvents> choose_events(const std::vector<FileEvent>& events);

}  // namespace sprof::perfdata
