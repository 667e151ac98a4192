/* Uses sprof/markers.h from C: one instant and one interval marker. */
#include <sprof/markers.h>
#include <time.h>

static void spin_for_ms(long ms) {
  struct timespec start, now;
  clock_gettime(CLOCK_MONOTONIC, &start);
  volatile long sink = 0;
  do {
    for (int i = 0; i < 1000; ++i) sink = sink + i;
    clock_gettime(CLOCK_MONOTONIC, &now);
    /* In ns: a per-field division truncates toward zero and can end the loop up to 1 ms early. */
  } while ((now.tv_sec - start.tv_sec) * 1000000000L + (now.tv_nsec - start.tv_nsec) <
           ms * 1000000L);
}

int main(void) {
  SPROF_MARKER_INSTANT("c-instant");
  uint64_t start = sprof_marker_begin();
  spin_for_ms(100);
  sprof_marker_end("c-interval", start);
  return 0;
}
