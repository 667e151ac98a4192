/* sprof/markers.h - user markers for sprof (and samply), header-only, C and C++.
 *
 *   #include <sprof/markers.h>
 *
 *   SPROF_MARKER_INSTANT("checkpoint");            // an instant marker, now
 *
 *   uint64_t t = sprof_marker_begin();             // an interval, C style
 *   do_work();
 *   sprof_marker_end("do_work", t);
 *
 *   { sprof::MarkerScope scope("parse"); ... }     // an interval, C++ RAII (until scope exit)
 *
 * Markers appear in the Firefox Profiler's marker chart and table, on the thread that made them.
 * Nothing to link (Linux, glibc >= 2.34; older glibc: link with -pthread). Strict ISO C modes
 * (-std=c99, -std=c11) hide the POSIX calls it makes: define _GNU_SOURCE before the first
 * #include (the default gnu modes and C++ need nothing). Names are copied
 * when the marker is written; a newline in a name becomes a space, and names longer than about
 * 900 bytes are cut.
 *
 * Cost. Not profiled: one relaxed load and a branch per call (the environment is read once);
 * sprof_marker_begin() then returns 0 without reading the clock. Profiled: a clock read
 * (vDSO), getpid() and one write(2) per marker; a thread's first marker also opens and mmaps
 * its file. Define SPROF_MARKERS_DISABLED before including to compile every call away.
 *
 * Protocol (samply's, which sprof also reads): `sprof record` sets SPROF_MARKER_DIR for the
 * command it launches. Each thread appends to <dir>/marker-<pid>-<tid>.txt, one line per
 * marker: "<start_ns> <end_ns> <name>\n" with CLOCK_MONOTONIC nanoseconds (start == end for an
 * instant). The file is mmapped once, so that perf emits a MMAP record naming it; that is how
 * the profiler finds the file. Without SPROF_MARKER_DIR every call does nothing.
 */
#ifndef SPROF_MARKERS_H
#define SPROF_MARKERS_H

#include <stdint.h>

#if defined(__cplusplus) && defined(__GNUC__)
/* C-style casts keep one source for C and C++; don't warn the including C++ code about them. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wold-style-cast"
#endif

#if defined(SPROF_MARKERS_DISABLED) || !defined(__linux__)

static inline int sprof_markers_enabled(void) { return 0; }
static inline uint64_t sprof_marker_now(void) { return 0; }
static inline void sprof_marker_interval(const char* name, uint64_t start_ns, uint64_t end_ns) {
  (void)name;
  (void)start_ns;
  (void)end_ns;
}
static inline void sprof_marker_instant(const char* name) { (void)name; }
static inline uint64_t sprof_marker_begin(void) { return 0; }
static inline void sprof_marker_end(const char* name, uint64_t start_ns) {
  (void)name;
  (void)start_ns;
}

#else

#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define SPROF_MARKERS_ENV "SPROF_MARKER_DIR"
#define SPROF_MARKERS_PATH_MAX 4096
#define SPROF_MARKERS_LINE_MAX 1024

/* Internal state, one copy per translation unit (static inline), which is harmless: each copy
 * reads the same environment, and two copies in one thread append to the same file. */
static inline const char* sprof_markers__dir(void) {
  static char dir[SPROF_MARKERS_PATH_MAX];
  static int state; /* 0: not read yet, 1: off, 2: on */
  int s = __atomic_load_n(&state, __ATOMIC_ACQUIRE);
  if (s == 0) {
    /* Several threads may get here at once; they all write the same bytes. */
    const char* env = getenv(SPROF_MARKERS_ENV);
    s = 1;
    if (env != NULL && env[0] != '\0' && strlen(env) < sizeof dir) {
      strcpy(dir, env);
      s = 2;
    }
    __atomic_store_n(&state, s, __ATOMIC_RELEASE);
  }
  return s == 2 ? dir : NULL;
}

static inline int sprof_markers_enabled(void) { return sprof_markers__dir() != NULL; }

/* CLOCK_MONOTONIC in ns: the clock the profiler's samples use. */
static inline uint64_t sprof_marker_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Thread exit closes the thread's marker file (the key's destructor gets fd + 1). */
static inline void sprof_markers__close_fd(void* value) { close((int)((intptr_t)value - 1)); }

static pthread_once_t sprof_markers__once = PTHREAD_ONCE_INIT;
static pthread_key_t sprof_markers__key;
static inline void sprof_markers__make_key(void) {
  pthread_key_create(&sprof_markers__key, sprof_markers__close_fd);
}

/* The calling thread's marker file, opened (and mmapped, for the MMAP record) on first use;
 * -1 when it cannot be opened. */
static inline int sprof_markers__fd(const char* dir) {
  static __thread int fd = -1; /* -2: opening failed in process fd_pid */
  static __thread pid_t fd_pid = 0;
  const pid_t pid = getpid();
  if (fd_pid == pid) return fd;
  /* First use in this thread, or a forked child holding its parent's file: start a new one. */
  if (fd >= 0) close(fd);
  fd_pid = pid;
  fd = -2;
  char path[SPROF_MARKERS_PATH_MAX + 64];
  snprintf(path, sizeof path, "%s/marker-%d-%ld.txt", dir, (int)pid, (long)syscall(SYS_gettid));
  /* O_RDWR: mmap needs a readable descriptor. O_APPEND: each write lands whole at the end. */
  const int opened = open(path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (opened < 0) return -1;
  /* The mapping only has to exist for perf to report it; it is never read. */
  void* map = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, opened, 0);
  if (map != MAP_FAILED) munmap(map, 4096);
  fd = opened;
  pthread_once(&sprof_markers__once, sprof_markers__make_key);
  pthread_setspecific(sprof_markers__key, (void*)(intptr_t)(fd + 1));
  return fd;
}

/* A marker from start_ns to end_ns (sprof_marker_now() values); start == end is an instant. */
static inline void sprof_marker_interval(const char* name, uint64_t start_ns, uint64_t end_ns) {
  const char* dir = sprof_markers__dir();
  if (dir == NULL) return;
  const int fd = sprof_markers__fd(dir);
  if (fd < 0) return;
  char line[SPROF_MARKERS_LINE_MAX];
  int n = snprintf(line, sizeof line, "%llu %llu ", (unsigned long long)start_ns,
                   (unsigned long long)end_ns);
  if (n < 0) return;
  size_t len = (size_t)n;
  for (const char* c = name ? name : ""; *c != '\0' && len < sizeof line - 1; ++c) {
    line[len++] = (*c == '\n' || *c == '\r') ? ' ' : *c;
  }
  line[len++] = '\n';
  ssize_t written = write(fd, line, len);
  (void)written; /* markers are best effort */
}

static inline void sprof_marker_instant(const char* name) {
  if (!sprof_markers_enabled()) return;
  const uint64_t now = sprof_marker_now();
  sprof_marker_interval(name, now, now);
}

/* The start of an interval for sprof_marker_end; 0 (and no clock read) when not profiled. */
static inline uint64_t sprof_marker_begin(void) {
  return sprof_markers_enabled() ? sprof_marker_now() : 0;
}

static inline void sprof_marker_end(const char* name, uint64_t start_ns) {
  if (start_ns == 0) return;
  sprof_marker_interval(name, start_ns, sprof_marker_now());
}

#endif /* SPROF_MARKERS_DISABLED */

#define SPROF_MARKER_INSTANT(name) sprof_marker_instant(name)

#ifdef __cplusplus
namespace sprof {

/* An interval marker from construction to destruction. `name` must outlive the scope (a string
 * literal, typically). */
class MarkerScope {
 public:
  explicit MarkerScope(const char* name) : name_(name), start_ns_(sprof_marker_begin()) {}
  ~MarkerScope() { sprof_marker_end(name_, start_ns_); }
  MarkerScope(const MarkerScope&) = delete;
  MarkerScope& operator=(const MarkerScope&) = delete;

 private:
  const char* name_;
  uint64_t start_ns_;
};

}  // namespace sprof
#endif

#if defined(__cplusplus) && defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

#endif /* SPROF_MARKERS_H */
