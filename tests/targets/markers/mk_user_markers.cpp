// Uses sprof/markers.h from C++: an instant and an interval on the main thread, a RAII scope and
// an instant on a second thread (named "marker-worker").
#include <pthread.h>
#include <sprof/markers.h>

#include <thread>

#include "spin.hpp"

int main() {
  SPROF_MARKER_INSTANT("main-instant");
  const uint64_t start = sprof_marker_begin();
  spin_for_ms(100);
  sprof_marker_end("main-interval", start);

  std::thread worker([] {
    pthread_setname_np(pthread_self(), "marker-worker");
    {
      sprof::MarkerScope scope("worker-scope");
      spin_for_ms(100);
    }
    SPROF_MARKER_INSTANT("worker-instant");
  });
  worker.join();
  return 0;
}
