// tests/unwind/unwind_debug_file_test.cpp
//
// A walk through a library whose only CFI is the .debug_frame of its separate debug file, placed
// in a symbol directory (as `--symbol-dir` names one), not under /usr/lib/debug. The library is
// loaded and called for real; its callback copies the live stack, and `CfiUnwinder` walks the
// copy with the CFI that `elf::CfiModule` finds through the symbol directory.
#include <dlfcn.h>
#include <doctest/doctest.h>
#include <pthread.h>
#include <ucontext.h>

#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "sprof/elf/cfi_module.hpp"
#include "sprof/elf/debug_file_locator.hpp"
#include "sprof/unwind/cfi_unwinder.hpp"
#include "symbols_test_support.hpp"
#include "unwind_snapshot.hpp"

namespace {

using DebugFrameFunction = uint64_t (*)(uint64_t, uint64_t (*)(uint64_t));

// The stack as the callback saw it: filled once, in static storage so that filling it does not
// write to the stack being copied.
struct LiveStack {
  ucontext_t context;
  uint64_t stack_top = 0;
  std::vector<uint8_t> bytes;
};
LiveStack g_live;

// glibc's uc_mcontext.gregs index -> perf register number (<asm/perf_regs.h>).
struct RegIndex {
  int greg;
  sprof::unwind::PerfReg perf;
};
using sprof::unwind::PerfReg;
constexpr RegIndex kRegIndex[] = {
    {REG_RAX, PerfReg::kAx},  {REG_RBX, PerfReg::kBx},  {REG_RCX, PerfReg::kCx},
    {REG_RDX, PerfReg::kDx},  {REG_RSI, PerfReg::kSi},  {REG_RDI, PerfReg::kDi},
    {REG_RBP, PerfReg::kBp},  {REG_RSP, PerfReg::kSp},  {REG_RIP, PerfReg::kIp},
    {REG_R8, PerfReg::kR8},   {REG_R9, PerfReg::kR9},   {REG_R10, PerfReg::kR10},
    {REG_R11, PerfReg::kR11}, {REG_R12, PerfReg::kR12}, {REG_R13, PerfReg::kR13},
    {REG_R14, PerfReg::kR14}, {REG_R15, PerfReg::kR15},
};

sprof::unwind::UserRegs live_regs() {
  sprof::unwind::UserRegs regs;
  for (const RegIndex& r : kRegIndex) {
    regs.regs[static_cast<size_t>(r.perf)] =
        static_cast<uint64_t>(g_live.context.uc_mcontext.gregs[r.greg]);
  }
  regs.valid = sprof::arch::x86_64::kUnwindRegsMask;
  return regs;
}

uint64_t thread_stack_top() {
  pthread_attr_t attr;
  if (pthread_getattr_np(pthread_self(), &attr) != 0) return 0;
  void* low = nullptr;
  size_t size = 0;
  pthread_attr_getstack(&attr, &low, &size);
  pthread_attr_destroy(&attr);
  return reinterpret_cast<uint64_t>(low) + size;
}

// Copies the live stack as the kernel copies a sample's: whole, redzones of AddressSanitizer's
// frames included, which it must not check (volatile reads, so the loop does not become a
// memcpy that ASan intercepts).
__attribute__((no_sanitize("address"))) void copy_live_stack(uint8_t* out, uint64_t from,
                                                             size_t size) {
  const volatile uint8_t* in = reinterpret_cast<const volatile uint8_t*>(from);
  for (size_t i = 0; i < size; ++i) out[i] = in[i];
}

}  // namespace

// Outside any namespace with C names, so that the walk's frames can be checked by name.
extern "C" __attribute__((noinline)) uint64_t sprof_test_copy_stack(uint64_t i) {
  if (i != 0 || !g_live.bytes.empty()) return i;
  getcontext(&g_live.context);
  const auto sp = static_cast<uint64_t>(g_live.context.uc_mcontext.gregs[REG_RSP]);
  g_live.stack_top = thread_stack_top();
  if (g_live.stack_top > sp) {
    g_live.bytes.resize(g_live.stack_top - sp);
    copy_live_stack(g_live.bytes.data(), sp, g_live.bytes.size());
  }
  return i;
}

extern "C" __attribute__((noinline)) uint64_t sprof_test_call_library(DebugFrameFunction function) {
  const uint64_t result = function(2, sprof_test_copy_stack);
  asm volatile("" ::: "memory");  // not a tail call: this frame stays on the stack
  return result + 1;
}

namespace sprof::test {
namespace {

// The unwinder's CFI source: each binary's CFI, with separate debug files looked for in
// `symbol_dir` only.
class SymbolDirCfi final : public unwind::ModuleCfiSource {
 public:
  explicit SymbolDirCfi(std::string symbol_dir) {
    options_.symbol_dirs = {std::move(symbol_dir)};
    options_.debug_roots.clear();  // keep /usr/lib/debug out of the test
  }
  Result<std::unique_ptr<elf::CfiModule>> module_cfi(const std::string& path) override {
    return elf::CfiModule::open(path, elf::DebugFileLocator(options_));
  }

 private:
  elf::LocatorOptions options_;
};

std::string self_maps() {
  std::ifstream in("/proc/self/maps");
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

TEST_CASE("a library whose CFI is only in a symbol dir's debug file unwinds completely") {
  const std::string library = target_path("unwind_debug_frame_split/libunwind_debug_frame_lib.so");
  TempDir symbol_dir;
  symbol_dir.copy_in(target_path("unwind_debug_frame_split/libunwind_debug_frame_lib.debug"),
                     build_id_tree_path(identity_of(library)));

  void* handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  REQUIRE_MESSAGE(handle != nullptr, dlerror());
  auto function = reinterpret_cast<DebugFrameFunction>(dlsym(handle, "debug_frame_function"));
  REQUIRE(reinterpret_cast<void*>(function) != nullptr);
  g_live.bytes.clear();
  sprof_test_call_library(function);
  REQUIRE_FALSE(g_live.bytes.empty());

  auto space = MapsAddressSpace::parse(self_maps(), nullptr);
  REQUIRE(space.has_value());
  SymbolDirCfi cfi(symbol_dir.path());
  unwind::CfiUnwinder unwinder(cfi);
  unwind::UnwindResult result;
  unwinder.unwind(live_regs(), unwind::StackMemory(live_regs().sp(), g_live.bytes), *space, result);

  SymbolLookup symbols(*space);
  std::vector<std::string> names;
  for (const FrameAddress& frame : result.frames) {
    names.push_back(symbols.name_of(frame.lookup_address()));
  }
  std::string walk = std::string(unwind::unwind_stop_name(result.stop)) + " after";
  for (const std::string& name : names) walk += " " + name;
  INFO(walk);
  REQUIRE(names.size() >= 4);
  CHECK(names[0] == "sprof_test_copy_stack");
  CHECK(names[1] == "debug_frame_function");
  CHECK(symbols.module_of(result.frames[1].address.value) == library);
  CHECK(names[2] == "sprof_test_call_library");
  CHECK(std::find(names.begin(), names.end(), "main") != names.end());
  // Every frame by CFI, up to _start's undefined return address.
  CHECK(result.frame_pointer_steps == 0);
  CHECK(result.stop == unwind::UnwindStop::kComplete);
  dlclose(handle);
}

}  // namespace sprof::test
