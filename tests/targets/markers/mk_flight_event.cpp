// mk_flight_event SECONDS: spins for SECONDS, marks the moment with an instant marker
// "the-event", prints "event" and then spins until it is killed: a long-running service with
// one rare moment, for the flight recorder's tests (tests/integration/flight_recorder_test.cpp).
#include <sprof/markers.h>

#include <cstdio>
#include <cstdlib>

#include "spin.hpp"

int main(int argc, char** argv) {
  const double seconds = argc > 1 ? std::atof(argv[1]) : 1.0;
  spin_for_ms(static_cast<uint64_t>(seconds * 1000));
  SPROF_MARKER_INSTANT("the-event");
  std::printf("event\n");
  std::fflush(stdout);
  for (;;) spin_for_ms(100);
}
