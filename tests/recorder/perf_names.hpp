// tests/recorder/perf_names.hpp
//
// `perf::` in recorder tests: the event and ring side (sprof::recorder::perf) and the record
// types and parser (sprof::perf) under one name, as the tests read them together.
#pragma once

#include "sprof/perf/records.hpp"

namespace sprof::recorder::perf {}

namespace perf {
using namespace sprof::recorder::perf;
using namespace sprof::perf;
}  // namespace perf
