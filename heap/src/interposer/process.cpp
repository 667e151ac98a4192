// heap/src/interposer/process.cpp
//
// The interposer's lifecycle in one process: attaching to the ring that sprof named in the
// environment, recognising fork children, and adding per-thread counts to the ring's totals.
// Everything here only makes async-signal-safe calls that do not allocate (open, mmap, getenv,
// readlink, clock_gettime, pthread_key_create/setspecific with a low key).
#include <fcntl.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "interposer/allocator_check.hpp"
#include "interposer/interposer.hpp"
#include "interposer/record_writes.hpp"
#include "interposer/sample_gap.hpp"

namespace sprof::heap::interposer {

Process g_process;
__thread ThreadState t_thread SPROF_HEAP_TLS;

namespace {

// Moves a thread's pending count into the ring's total. The subtraction is one atomic
// instruction, so a signal handler that counts a call in the middle of it is not lost.
void move_count(uint64_t& pending, uint64_t RingCounters::*total) {
  const uint64_t n = __atomic_load_n(&pending, __ATOMIC_RELAXED);
  if (n == 0) return;
  __atomic_fetch_sub(&pending, n, __ATOMIC_RELAXED);
  __atomic_fetch_add(&(g_process.header->counters.*total), n, __ATOMIC_RELAXED);
}

void flush_at_thread_exit(void* /*unused*/) { flush_counts(t_thread); }

// Maps the ring named by `path`; false (nothing kept) when it is missing or not a ring we know.
bool map_ring(const char* path) {
  // O_NONBLOCK: a path naming a FIFO or a device must not hang the program.
  const int fd = ::open(path, O_RDWR | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0) return false;
  struct stat st {};
  RingConfig config{};
  bool usable = false;
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
      st.st_size >= static_cast<off_t>(kRingHeaderBytes)) {
    void* first = ::mmap(nullptr, kRingHeaderBytes, PROT_READ, MAP_SHARED, fd, 0);
    if (first != MAP_FAILED) {
      std::memcpy(&config, first, sizeof config);
      ::munmap(first, kRingHeaderBytes);
      usable = ring_config_problem(config, static_cast<uint64_t>(st.st_size)) == nullptr;
    }
  }
  void* area = MAP_FAILED;
  const size_t area_bytes = usable ? size_t{config.header_bytes} + config.data_bytes : 0;
  if (usable) area = ::mmap(nullptr, area_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  ::close(fd);
  if (area == MAP_FAILED) return false;

  Process& p = g_process;
  if (config.sample_interval_bytes != 0) {
    const size_t buckets = (size_t{1} << config.tracked_capacity_log2) / 8;
    void* set = ::mmap(nullptr, AddressSet::bytes_for(buckets), PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (set == MAP_FAILED) {
      ::munmap(area, area_bytes);
      return false;
    }
    p.tracked.init(set, buckets, nullptr);
  } else {
    __atomic_store_n(&p.watch_frees, 1, __ATOMIC_RELAXED);
  }
  // The configuration as validated, not as the shared header may say later.
  auto* header = static_cast<RingHeader*>(area);
  p.header = header;
  // Record-all mode promises every allocation: writers wait for sprof (the creator, which
  // reads the ring) rather than drop.
  p.writer.init(header, static_cast<uint8_t*>(area) + config.header_bytes, config.data_bytes,
                config.sample_interval_bytes == 0, config.creator_pid);
  p.sample_interval = config.sample_interval_bytes;
  p.stack_copy_bytes = config.stack_copy_bytes;
  p.free_stacks = (config.options & kOptionFreeStacks) != 0;
  p.copy_stacks = (config.options & kOptionCopyStacks) != 0;
  return true;
}

void announce(AttachHow how) {
  __atomic_fetch_add(&g_process.header->counters.attached_processes, 1, __ATOMIC_RELAXED);
  ThreadState& t = t_thread;
  refresh_thread(t);
  write_attach_record(t, how, static_cast<uint32_t>(::getppid()));
}

void in_fork_child() {
  Process& p = g_process;
  if (attachment() != Attachment::kAttached) return;
  ++p.generation;
  ThreadState& t = t_thread;
  // These counts were the parent's; it adds them itself.
  t.pending_allocations = 0;
  t.pending_bytes = 0;
  t.pending_reentrant = 0;
  t.pending_sampled = 0;
  t.pending_sampled_bytes = 0;
  t.pending_free_records = 0;
  announce(AttachHow::kFork);
}

// Runs before main (after libc's own initialisation): attaches if no allocation has done it
// yet, and registers what may not be registered from inside malloc.
__attribute__((constructor(101))) void interposer_constructor() {
  Process& p = g_process;
  const bool attached_before = attachment() == Attachment::kAttached;
  // An allocation of dlsym's must not attach before the flags are known: while they are
  // looked up, calls pass through as they do while another thread attaches.
  int expected = static_cast<int>(Attachment::kNotYet);
  const bool holding = __atomic_compare_exchange_n(&p.attachment, &expected,
                                                   static_cast<int>(Attachment::kAttaching), false,
                                                   __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
  p.attach_flags = bypassed_calls();
  if (holding)
    __atomic_store_n(&p.attachment, static_cast<int>(Attachment::kNotYet), __ATOMIC_RELEASE);
  try_attach();
  if (attachment() != Attachment::kAttached) return;
  // An allocation before this constructor (a library's initialisation) attached without the
  // flags: say it again, with them.
  if (attached_before && p.attach_flags != 0) {
    refresh_thread(t_thread);
    write_attach_record(t_thread, AttachHow::kStart, static_cast<uint32_t>(::getppid()));
  }
  register_fork_handler();
}

__attribute__((destructor(101))) void interposer_destructor() {
  // Other threads may still run; the mapping stays so their calls keep working.
  if (attachment() == Attachment::kAttached) flush_counts(t_thread);
}

}  // namespace

uint64_t monotonic_ns() {
  struct timespec ts {};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ULL + static_cast<uint64_t>(ts.tv_nsec);
}

void try_attach() {
  // Before libc's initialisation (e.g. the dynamic loader allocating) getenv cannot see the
  // environment yet: pass through and try again on a later call.
  if (__environ == nullptr) return;
  int expected = static_cast<int>(Attachment::kNotYet);
  if (!__atomic_compare_exchange_n(&g_process.attachment, &expected,
                                   static_cast<int>(Attachment::kAttaching), false,
                                   __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
    return;
  const int saved_errno = errno;
  attach_holding(::getenv(kRingEnvVar), AttachHow::kStart);
  errno = saved_errno;
}

bool attach_holding(const char* path, AttachHow how) {
  Process& p = g_process;
  if (path == nullptr || path[0] == '\0' || !map_ring(path)) {
    __atomic_store_n(&p.attachment, static_cast<int>(Attachment::kDisabled), __ATOMIC_RELEASE);
    return false;
  }
  pthread_key_t key;
  if (::pthread_key_create(&key, flush_at_thread_exit) == 0) {
    p.exit_key = key;
    p.exit_key_created = true;
  }
  p.generation = 1;
  __atomic_store_n(&p.attachment, static_cast<int>(Attachment::kAttached), __ATOMIC_RELEASE);
  announce(how);
  return true;
}

void register_fork_handler() {
  Process& p = g_process;
  if (p.atfork_registered) return;
  // pthread_atfork takes the lock fork() holds while running prepare handlers, which may
  // call malloc: never register it from inside malloc.
  p.atfork_registered = ::pthread_atfork(nullptr, nullptr, in_fork_child) == 0;
}

void refresh_thread(ThreadState& t) {
  Process& p = g_process;
  if (t.generation == p.generation) return;
  t.pid = static_cast<uint32_t>(::getpid());
  t.tid = static_cast<uint32_t>(::syscall(SYS_gettid));
  t.random_state =
      seed_random(monotonic_ns() ^ (uint64_t{t.tid} << 32) ^ reinterpret_cast<uintptr_t>(&t));
  t.generation = p.generation;
  if (!t.exit_flush_armed && p.exit_key_created) {
    // Any non-null value makes the key's destructor run at thread exit.
    t.exit_flush_armed = ::pthread_setspecific(static_cast<pthread_key_t>(p.exit_key), &t) == 0;
  }
}

void flush_counts(ThreadState& t) {
  if (g_process.header == nullptr) return;
  move_count(t.pending_allocations, &RingCounters::allocations);
  move_count(t.pending_bytes, &RingCounters::allocated_bytes);
  move_count(t.pending_reentrant, &RingCounters::reentrant_calls);
  move_count(t.pending_sampled, &RingCounters::sampled_allocations);
  move_count(t.pending_sampled_bytes, &RingCounters::sampled_bytes);
  move_count(t.pending_free_records, &RingCounters::free_records);
}

}  // namespace sprof::heap::interposer
