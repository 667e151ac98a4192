// recorder/src/perf/cpu_list.hpp
//
// CPU lists in the kernel's "cpulist" format (Documentation/admin-guide/cputopology.rst), as in
// /sys/devices/system/cpu/online: comma-separated CPUs and inclusive ranges, e.g. "0-3,6,8-9".
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "sprof/core/result.hpp"

namespace sprof::recorder::perf {

// Parses a cpulist (a trailing newline is allowed). Returns the CPUs in ascending order.
Result<std::vector<uint32_t>> parse_cpu_list(std::string_view text);

// Reads and parses /sys/devices/system/cpu/online.
Result<std::vector<uint32_t>> online_cpus();

}  // namespace sprof::recorder::perf
