// recorder/src/heap/heap_injector.hpp
//
// Loads libsprof-heap.so into a program that is already running and points it at a heap ring
// (`sprof record --heap -p PID`; docs/heap.md, "Attaching to a running program"). With ptrace,
// one thread of the program is stopped and made to call dlopen(library, RTLD_NOW) and then the
// interposer's sprof_heap_attach_running(ring_path); its registers are then put back as they
// were and the program is detached, to run on with its allocations going through the
// interposer. Nothing is ever unloaded.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <string>

#include "sprof/core/result.hpp"

namespace sprof::recorder {

struct HeapInjection {
  pid_t pid = 0;
  std::string library_path;  // libsprof-heap.so, as the target can open it
  std::string ring_path;     // what SPROF_HEAP_RING would hold (/proc/<sprof>/fd/<memfd>)
  // For each wait on the target (the stop, each call): a thread blocked holding the loader's or
  // the allocator's lock would make dlopen wait for ever.
  std::chrono::milliseconds timeout{10000};
};

// Errors: kPermissionDenied naming kernel.yama.ptrace_scope or the other tracer
// (ptrace_permission.hpp); kNotFound when the process, its libc or dlopen cannot be found;
// kInternal when a call in the target failed or timed out (the message says which, with
// dlerror's text for dlopen). On every failure after the stop the registers are restored and
// the program detached.
Result<void> inject_heap_interposer(const HeapInjection& request);

}  // namespace sprof::recorder
