// recorder/src/heap/heap_injector.cpp
//
// Kernel and ABI facts relied on:
// - ptrace(2): PTRACE_SEIZE attaches without stopping; PTRACE_INTERRUPT stops the thread in a
//   PTRACE_EVENT_STOP (status >> 16); PTRACE_DETACH's data argument is a signal to deliver.
//   A thread interrupted in a blocking syscall stops with rax = -ERESTART* and orig_rax = the
//   syscall number; the kernel restarts that syscall (rip -= 2, rax = orig_rax) when the thread
//   leaves the stop with those registers. So the calls below run with orig_rax = -1 (nothing to
//   restart), and the saved registers, put back unchanged before the last resume, let the
//   kernel restart the program's syscall itself: a sleeping program goes on sleeping.
// - x86-64 psABI: arguments in rdi, rsi; result in rax; rsp + 8 a multiple of 16 at a function's
//   first instruction, the return address at [rsp]; 128 bytes below rsp (the red zone) may hold
//   the interrupted function's data. The return address pushed here is 0, so the call ends in
//   a SIGSEGV at address 0, which stops the thread for sprof before the program sees it.
// - The vector registers are not preserved by a call either: the whole XSAVE area
//   (NT_X86_XSTATE) is saved and restored around the calls.
// - glibc 2.34 and later define dlopen and dlerror in libc.so.6.
#include "heap/heap_injector.hpp"

#include <dlfcn.h>
#include <elf.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <optional>
#include <thread>
#include <vector>

#include "heap/ptrace_permission.hpp"
#include "process/proc_maps.hpp"
#include "sprof/elf/elf_symbols.hpp"

namespace sprof::recorder {
namespace {

constexpr uint64_t kRedZoneBytes = 128;
constexpr size_t kXStateBytes =
    size_t{16} * 1024;  // larger than any XSAVE layout the kernel reports

// The names sprof_heap_attach_running returns (heap/src/interposer/attach_entry.cpp).
const char* attach_result_name(uint64_t code) {
  switch (code) {
    case 1: return "the interposer could not map the heap ring";
    case 2: return "the interposer is already attached to a ring in this process";
    case 3: return "no loaded object binds malloc or free to a slot the interposer can redirect";
    default: return "unknown result";
  }
}

struct MappedFile {
  std::string path;   // as the target sees it
  uint64_t base = 0;  // start of its mapping at file offset 0
};

// The object whose file name starts with `prefix` (e.g. "libc.so"), or whose path is `exact`.
std::optional<MappedFile> find_mapping(const std::vector<MapsEntry>& maps, std::string_view prefix,
                                       std::string_view exact) {
  for (const auto& m : maps) {
    if (m.offset != 0 || m.path.empty() || m.is_pseudo()) continue;
    const std::string name = std::filesystem::path(m.path).filename().string();
    if ((!prefix.empty() && name.starts_with(prefix)) || (!exact.empty() && m.path == exact))
      return MappedFile{m.path, m.start};
  }
  return std::nullopt;
}

// A function's address in the target: the mapping's base plus the symbol's value (shared
// objects link their first segment at 0, so the value is the offset from the base).
Result<uint64_t> function_address(pid_t pid, const MappedFile& file, std::string_view name) {
  // Through the target's root, so a program in another mount namespace is read right.
  const std::string path = "/proc/" + std::to_string(pid) + "/root" + file.path;
  SPROF_TRY(auto symbols, elf::read_symbols(path));
  const auto symbol = elf::find_symbol(symbols, name);
  if (!symbol || symbol->address == 0)
    return fail(Errc::kNotFound, std::string(name) + " not found in " + file.path);
  return file.base + symbol->address;
}

class StoppedThread {
 public:
  StoppedThread(pid_t pid, std::chrono::milliseconds timeout) : pid_(pid), timeout_(timeout) {}

  // Seizes and stops the thread, saving its registers.
  Result<void> stop() {
    if (::ptrace(PTRACE_SEIZE, pid_, nullptr, nullptr) != 0) {
      const int err = errno;
      if (err == EPERM)
        return fail(Errc::kPermissionDenied,
                    "cannot ptrace process " + std::to_string(pid_) +
                        ": not permitted (kernel.yama.ptrace_scope 1 allows only a parent to "
                        "attach without CAP_SYS_PTRACE: run as root or set it to 0)");
      return unexpected(Error::from_errno("PTRACE_SEIZE of process " + std::to_string(pid_), err));
    }
    seized_ = true;
    if (::ptrace(PTRACE_INTERRUPT, pid_, nullptr, nullptr) != 0)
      return unexpected(Error::from_errno("PTRACE_INTERRUPT"));
    running_ = true;  // until the stop is seen: PTRACE_DETACH needs a stopped tracee
    SPROF_TRY_VOID(wait_for_stop(/*want_segv=*/false));
    if (::ptrace(PTRACE_GETREGS, pid_, nullptr, &saved_) != 0)
      return unexpected(Error::from_errno("PTRACE_GETREGS"));
    iovec io{saved_xstate_.data(), saved_xstate_.size()};
    if (::ptrace(PTRACE_GETREGSET, pid_, reinterpret_cast<void*>(NT_X86_XSTATE), &io) == 0) {
      saved_xstate_.resize(io.iov_len);
      have_xstate_ = true;
    }
    saved_ok_ = true;
    return ok();
  }

  // Calls function(a, b) in the thread; `data` is copied below the stack pointer first and
  // `a` may be kDataArg to pass its address. Returns rax.
  static constexpr uint64_t kDataArg = ~uint64_t{0};
  Result<uint64_t> call(uint64_t function, uint64_t a, uint64_t b, std::string_view data) {
    user_regs_struct regs = saved_;
    uint64_t sp = saved_.rsp - kRedZoneBytes - (data.size() + 1);
    sp &= ~uint64_t{15};
    const uint64_t data_at = sp;
    if (!data.empty()) {
      std::string bytes(data);
      bytes.push_back('\0');
      SPROF_TRY_VOID(write_memory(data_at, bytes.data(), bytes.size()));
    }
    sp -= 8;  // the return address: rsp + 8 is then a multiple of 16
    const uint64_t zero = 0;
    SPROF_TRY_VOID(write_memory(sp, &zero, sizeof zero));
    regs.rsp = sp;
    regs.rip = function;
    regs.rdi = a == kDataArg ? data_at : a;
    regs.rsi = b;
    regs.rax = 0;
    regs.orig_rax = ~0ULL;  // -1: not in a syscall, nothing for the kernel to restart
    if (::ptrace(PTRACE_SETREGS, pid_, nullptr, &regs) != 0)
      return unexpected(Error::from_errno("PTRACE_SETREGS"));
    dirty_ = true;
    if (::ptrace(PTRACE_CONT, pid_, nullptr, nullptr) != 0)
      return unexpected(Error::from_errno("PTRACE_CONT"));
    running_ = true;
    SPROF_TRY_VOID(wait_for_stop(/*want_segv=*/true));
    user_regs_struct after{};
    if (::ptrace(PTRACE_GETREGS, pid_, nullptr, &after) != 0)
      return unexpected(Error::from_errno("PTRACE_GETREGS"));
    if (after.rip != 0)
      return fail(Errc::kInternal, "the call stopped at 0x" + hex(after.rip) + ", not on return");
    return after.rax;
  }

  // Reads a NUL-terminated string of at most `limit` bytes from the target.
  std::string read_string(uint64_t address, size_t limit) const {
    std::string out(limit, '\0');
    iovec local{out.data(), out.size()};
    iovec remote{reinterpret_cast<void*>(address), out.size()};
    const ssize_t n = ::process_vm_readv(pid_, &local, 1, &remote, 1, 0);
    out.resize(n > 0 ? std::strlen(out.c_str()) : 0);
    return out;
  }

  // Puts the registers back and lets the program go, whatever happened before.
  ~StoppedThread() {
    if (!seized_) return;
    if (running_) {
      // A call that timed out: stop it again to restore what can be restored.
      ::ptrace(PTRACE_INTERRUPT, pid_, nullptr, nullptr);
      (void)wait_for_stop(/*want_segv=*/false);
    }
    if (saved_ok_ && dirty_ && !running_) {
      if (have_xstate_) {
        iovec io{saved_xstate_.data(), saved_xstate_.size()};
        ::ptrace(PTRACE_SETREGSET, pid_, reinterpret_cast<void*>(NT_X86_XSTATE), &io);
      }
      ::ptrace(PTRACE_SETREGS, pid_, nullptr, &saved_);
    }
    ::ptrace(PTRACE_DETACH, pid_, nullptr, reinterpret_cast<void*>(intptr_t{pending_signal_}));
  }

  StoppedThread(const StoppedThread&) = delete;
  StoppedThread& operator=(const StoppedThread&) = delete;

 private:
  static std::string hex(uint64_t v) {
    std::array<char, 17> buf{};
    std::snprintf(buf.data(), buf.size(), "%llx", static_cast<unsigned long long>(v));
    return buf.data();
  }

  Result<void> write_memory(uint64_t address, const void* bytes, size_t n) const {
    iovec local{const_cast<void*>(bytes), n};
    iovec remote{reinterpret_cast<void*>(address), n};
    if (::process_vm_writev(pid_, &local, 1, &remote, 1, 0) != static_cast<ssize_t>(n))
      return unexpected(Error::from_errno("writing the target's stack"));
    return ok();
  }

  // Waits, up to the timeout, for the stop that ends the interrupt (want_segv false) or a call
  // (want_segv: the SIGSEGV at address 0). Other signals that arrive meanwhile are held back and
  // delivered at detach (the last one; the program sees it once sprof is gone).
  Result<void> wait_for_stop(bool want_segv) {
    const auto deadline = std::chrono::steady_clock::now() + timeout_;
    auto pause = std::chrono::microseconds(50);
    for (;;) {
      int status = 0;
      const pid_t got = ::waitpid(pid_, &status, WNOHANG | __WALL);
      if (got < 0) return unexpected(Error::from_errno("waitpid"));
      if (got == pid_) {
        if (WIFEXITED(status) || WIFSIGNALED(status)) {
          seized_ = false;
          running_ = false;
          return fail(Errc::kInternal, "process " + std::to_string(pid_) + " ended during attach");
        }
        const int sig = WSTOPSIG(status);
        const bool event_stop = (status >> 16) == PTRACE_EVENT_STOP;
        if (!want_segv && event_stop) {
          running_ = false;
          return ok();
        }
        if (want_segv && !event_stop && sig == SIGSEGV && segv_at_zero()) {
          running_ = false;
          return ok();
        }
        if (!event_stop) pending_signal_ = sig;
        if (!want_segv && !event_stop) {
          // A signal-delivery-stop is a stop too: use it.
          running_ = false;
          return ok();
        }
        ::ptrace(PTRACE_CONT, pid_, nullptr, nullptr);
        continue;
      }
      if (std::chrono::steady_clock::now() >= deadline)
        return fail(Errc::kInternal,
                    std::string("timed out waiting for process ") + std::to_string(pid_) +
                        (want_segv ? " to return from a call (a lock held by the stopped thread?)"
                                   : " to stop"));
      std::this_thread::sleep_for(pause);
      pause = std::min(pause * 2, std::chrono::microseconds(5000));
    }
  }

  bool segv_at_zero() const {
    siginfo_t info{};
    return ::ptrace(PTRACE_GETSIGINFO, pid_, nullptr, &info) == 0 && info.si_addr == nullptr;
  }

  pid_t pid_;
  std::chrono::milliseconds timeout_;
  user_regs_struct saved_{};
  std::vector<uint8_t> saved_xstate_ = std::vector<uint8_t>(kXStateBytes);
  bool have_xstate_ = false;
  bool seized_ = false;
  bool saved_ok_ = false;
  bool dirty_ = false;    // the registers were changed
  bool running_ = false;  // resumed and not (yet) stopped again
  int pending_signal_ = 0;
};

}  // namespace

Result<void> inject_heap_interposer(const HeapInjection& request) {
  const pid_t pid = request.pid;
  SPROF_TRY_VOID(check_ptrace_allowed(pid));
  SPROF_TRY(auto maps, read_maps(pid));
  const auto libc = find_mapping(maps, "libc.so", "");
  if (!libc)
    return fail(Errc::kNotFound, "process " + std::to_string(pid) + " has no libc.so mapped");
  SPROF_TRY(const uint64_t dlopen_at, function_address(pid, *libc, "dlopen"));
  SPROF_TRY(const uint64_t dlerror_at, function_address(pid, *libc, "dlerror"));
  std::error_code ec;
  const std::string library = std::filesystem::canonical(request.library_path, ec).string();
  if (ec) return fail(Errc::kNotFound, "cannot resolve '" + request.library_path + "'");

  StoppedThread thread(pid, request.timeout);
  SPROF_TRY_VOID(thread.stop());
  SPROF_TRY(const uint64_t handle,
            thread.call(dlopen_at, StoppedThread::kDataArg, RTLD_NOW, library));
  if (handle == 0) {
    std::string why = "no message";
    if (auto message = thread.call(dlerror_at, 0, 0, ""); message && *message != 0)
      why = thread.read_string(*message, 512);
    return fail(Errc::kInternal,
                "dlopen(" + library + ") in process " + std::to_string(pid) + " failed: " + why);
  }
  SPROF_TRY(auto maps_after, read_maps(pid));
  const auto interposer = find_mapping(maps_after, "", library);
  if (!interposer) return fail(Errc::kInternal, library + " is not mapped after dlopen");
  SPROF_TRY(const uint64_t attach_at,
            function_address(pid, *interposer, "sprof_heap_attach_running"));
  SPROF_TRY(const uint64_t result,
            thread.call(attach_at, StoppedThread::kDataArg, 0, request.ring_path));
  if ((result & 0xffffffffu) != 0)
    return fail(Errc::kInternal, "sprof_heap_attach_running in process " + std::to_string(pid) +
                                     ": " + attach_result_name(result & 0xffffffffu));
  return ok();
}

}  // namespace sprof::recorder
