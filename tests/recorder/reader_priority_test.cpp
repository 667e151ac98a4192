#include "reader_priority.hpp"

#include <doctest/doctest.h>
#include <sched.h>

#include <thread>

namespace sprof::recorder {
namespace {

// Runs `body` on a thread of its own, so that the test's thread keeps its scheduling.
template <class Body>
void on_new_thread(Body body) {
  std::thread(body).join();
}

TEST_CASE(
    "a real-time reader becomes SCHED_OTHER inside OrdinaryScheduling, then real-time again") {
  on_new_thread([] {
    sched_param param{};
    param.sched_priority = 1;
    if (sched_setscheduler(0, SCHED_FIFO | SCHED_RESET_ON_FORK, &param) != 0) {
      MESSAGE("no CAP_SYS_NICE here: the real-time case cannot be tested");
      return;
    }
    {
      const OrdinaryScheduling ordinary;
      CHECK(sched_getscheduler(0) == SCHED_OTHER);
    }
    CHECK((sched_getscheduler(0) & ~SCHED_RESET_ON_FORK) == SCHED_FIFO);
    sched_param after{};
    REQUIRE(sched_getparam(0, &after) == 0);
    CHECK(after.sched_priority == 1);
  });
}

TEST_CASE("OrdinaryScheduling leaves an ordinary thread as it is") {
  on_new_thread([] {
    REQUIRE(sched_getscheduler(0) == SCHED_OTHER);
    {
      const OrdinaryScheduling ordinary;
      CHECK(sched_getscheduler(0) == SCHED_OTHER);
    }
    CHECK(sched_getscheduler(0) == SCHED_OTHER);
  });
}

}  // namespace
}  // namespace sprof::recorder
