// Prepares a process's `libs` for the Gecko format (docs/firefox-profiler-format.md, "libs"): the
// front end binary-searches them, so they must be sorted by `start` and non-overlapping, and it
// reads `start`/`end` through `BigInt(number)`, so values at or above 2^53 must be exactly
// representable as doubles.
#pragma once

#include <vector>

#include "sprof/profile/profile.hpp"

namespace sprof::profile::detail {

// Returns `libs` rounded, sorted and with overlaps resolved, deterministically:
//  - `start` >= 2^53 is rounded down and `end` >= 2^53 up to a multiple of 4096 (any such
//    multiple below 2^64 is an exact double). `offset` is kept: for the kernel lib, relative
//    addresses are defined from the rounded start (docs/firefox-profiler-format.md, "Kernel
//    frames").
//  - libs are sorted by (start, end, path, name); the earlier of two overlapping libs wins;
//    a later one that extends past it is trimmed to begin at its end (with `offset` moved by the
//    same amount, so `start - offset` and thus every relative address is unchanged); one that is
//    covered completely, or empty, is dropped.
std::vector<Library> normalize_libs(std::vector<Library> libs);

}  // namespace sprof::profile::detail
