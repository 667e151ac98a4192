// recorder/src/process/stop_child.hpp
//
// Ending a launched command that outlives its recording (`-d SECS --kill-on-stop`).
#pragma once

#include <chrono>

#include "process/launcher.hpp"

namespace sprof::recorder {

// SIGTERM, then SIGKILL when the command has not exited after `grace`; reaps it.
Result<convert::ExitStatus> terminate_child(LaunchedChild& child, std::chrono::milliseconds grace);

}  // namespace sprof::recorder
