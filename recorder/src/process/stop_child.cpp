#include "process/stop_child.hpp"

#include <signal.h>

#include <thread>

namespace sprof::recorder {

Result<convert::ExitStatus> terminate_child(LaunchedChild& child, std::chrono::milliseconds grace) {
  constexpr auto kCheckInterval = std::chrono::milliseconds(10);
  SPROF_TRY_VOID(child.send_signal(SIGTERM));
  const auto give_up = std::chrono::steady_clock::now() + grace;
  while (std::chrono::steady_clock::now() < give_up) {
    SPROF_TRY(auto status, child.try_wait());
    if (status) return *status;
    std::this_thread::sleep_for(kCheckInterval);
  }
  SPROF_TRY_VOID(child.send_signal(SIGKILL));
  return child.wait_for_exit();
}

}  // namespace sprof::recorder
