// sprof/convert/marker_schemas.hpp
//
// The marker types sprof writes and their schemas (docs/firefox-profiler-format.md, "Marker
// schemas"; Gecko shape: fields under `data`). A marker's `type` selects its schema by name, so the
// type names here are the only link between the markers the converter adds and how the Firefox
// Profiler shows them. None of them is one of the front end's reserved payload types
// (docs/firefox-profiler-format.md, "markers").
#pragma once

#include <vector>

#include "sprof/profile/profile.hpp"

namespace sprof::convert {

inline constexpr const char* kProcessStartMarkerType = "ProcessStart";
inline constexpr const char* kExecMarkerType = "Exec";
inline constexpr const char* kProcessExitMarkerType = "ProcessExit";
inline constexpr const char* kThreadStartMarkerType = "ThreadStart";
inline constexpr const char* kThreadExitMarkerType = "ThreadExit";
inline constexpr const char* kLostSamplesMarkerType = "LostSamples";
inline constexpr const char* kThrottleMarkerType = "Throttle";
inline constexpr const char* kUserMarkerType = "UserMarker";
inline constexpr const char* kOnCpuMarkerType = "OnCpu";

// Every schema above, for `Meta::marker_schema` (written once, at the top level).
std::vector<profile::MarkerSchema> sprof_marker_schemas();

}  // namespace sprof::convert
