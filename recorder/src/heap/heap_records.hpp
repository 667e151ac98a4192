// recorder/src/heap/heap_records.hpp
//
// Decoded allocation-ring events (sprof/heap/heap_events.hpp, which borrow the ring's bytes) as
// the converter's records (HeapAllocRecord & co in sprof/perf/records.hpp), which own
// their stack copy and outlive the drain. Pure.
#pragma once

#include "sprof/heap/heap_events.hpp"
#include "sprof/perf/records.hpp"

namespace sprof::recorder {

sprof::perf::Record heap_record(const heap::HeapEvent& event);

}  // namespace sprof::recorder
