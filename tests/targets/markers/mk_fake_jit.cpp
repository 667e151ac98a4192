// A fake JIT. It copies a small x86-64 loop into anonymous executable memory, names it the way
// JITs do, and runs it for about half a second.
//   mk_fake_jit perfmap        names it "jitted_hot_loop" in /tmp/perf-<pid>.map
//   mk_fake_jit jitdump <dir>  names it "jitdump_hot_loop" in <dir>/jit-<pid>.dump (mmapped
//                              executable, as the jitdump specification asks, so perf sees it),
//                              with source lines (kJitSourceFile: the loop body is line 41)
// Prints the code's address on stdout.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <string>
#include <vector>

#include "spin.hpp"

namespace {

// uint64_t loop(uint64_t n) { uint64_t i = 0; do ++i; while (i < n); return i; }
//   0: 31 c0        xor eax, eax
//   2: 48 83 c0 01  add rax, 1
//   6: 48 39 f8     cmp rax, rdi
//   9: 72 f7        jb 2
//  11: c3           ret
constexpr uint8_t kLoopCode[] = {0x31, 0xc0, 0x48, 0x83, 0xc0, 0x01,
                                 0x48, 0x39, 0xf8, 0x72, 0xf7, 0xc3};
using LoopFn = uint64_t (*)(uint64_t);

// The made-up source the jitdump's DEBUG_INFO names: line 40 for the setup, 41 for the loop
// body (offsets 2..10, where the samples land), 42 for the return.
constexpr char kJitSourceFile[] = "/sprof-fake-jit/hot_loop.js";
struct SourceLine {
  uint64_t offset;
  uint32_t line;
};
constexpr SourceLine kSourceLines[] = {{0, 40}, {2, 41}, {11, 42}};

void* emit_code() {
  void* mem = mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mem == MAP_FAILED) return nullptr;
  std::memcpy(mem, kLoopCode, sizeof kLoopCode);
  if (mprotect(mem, 4096, PROT_READ | PROT_EXEC) != 0) return nullptr;
  return mem;
}

bool write_perf_map(const void* code) {
  const std::string path = "/tmp/perf-" + std::to_string(getpid()) + ".map";
  FILE* f = std::fopen(path.c_str(), "w");
  if (f == nullptr) return false;
  std::fprintf(f, "%" PRIxPTR " %zx jitted_hot_loop\n", reinterpret_cast<uintptr_t>(code),
               sizeof kLoopCode);
  return std::fclose(f) == 0;
}

template <typename T>
void put(std::vector<uint8_t>& out, T value) {
  const auto* p = reinterpret_cast<const uint8_t*>(&value);
  out.insert(out.end(), p, p + sizeof value);
}

// JIT_CODE_DEBUG_INFO for the code at `code`: code_addr, nr_entry, then per entry
// {code_addr, line, discrim, file name\0}.
void put_debug_info(std::vector<uint8_t>& out, const void* code) {
  const auto addr = reinterpret_cast<uintptr_t>(code);
  std::vector<uint8_t> body;
  put<uint64_t>(body, addr);
  put<uint64_t>(body, std::size(kSourceLines));
  for (const SourceLine& l : kSourceLines) {
    put<uint64_t>(body, addr + l.offset);
    put<uint32_t>(body, l.line);
    put<uint32_t>(body, 0);  // discrim
    body.insert(body.end(), kJitSourceFile, kJitSourceFile + sizeof kJitSourceFile);
  }
  put<uint32_t>(out, 2);  // JIT_CODE_DEBUG_INFO
  put<uint32_t>(out, static_cast<uint32_t>(16 + body.size()));
  put<uint64_t>(out, monotonic_ns());
  out.insert(out.end(), body.begin(), body.end());
}

// tools/perf/Documentation/jitdump-specification.txt: header, then the code's DEBUG_INFO and
// JIT_CODE_LOAD records (DEBUG_INFO first, as the specification requires).
bool write_jitdump(const std::string& dir, const void* code) {
  const std::string path = dir + "/jit-" + std::to_string(getpid()) + ".dump";
  const int fd = open(path.c_str(), O_CREAT | O_TRUNC | O_RDWR, 0600);
  if (fd < 0) return false;
  // The marker mapping: perf (and sprof) learn the file's path from this mmap's record.
  if (mmap(nullptr, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0) == MAP_FAILED) return false;

  std::vector<uint8_t> out;
  put<uint32_t>(out, 0x4A695444);  // magic 'JiTD'
  put<uint32_t>(out, 1);           // version
  put<uint32_t>(out, 40);          // header size
  put<uint32_t>(out, 62);          // EM_X86_64
  put<uint32_t>(out, 0);           // pad1
  put<uint32_t>(out, static_cast<uint32_t>(getpid()));
  put<uint64_t>(out, monotonic_ns());
  put<uint64_t>(out, 0);  // flags

  put_debug_info(out, code);
  const char name[] = "jitdump_hot_loop";
  const uint32_t record_size = 16 + 4 + 4 + 8 + 8 + 8 + 8 + sizeof name + sizeof kLoopCode;
  put<uint32_t>(out, 0);  // JIT_CODE_LOAD
  put<uint32_t>(out, record_size);
  put<uint64_t>(out, monotonic_ns());
  put<uint32_t>(out, static_cast<uint32_t>(getpid()));
  put<uint32_t>(out, static_cast<uint32_t>(syscall(SYS_gettid)));
  put<uint64_t>(out, reinterpret_cast<uintptr_t>(code));  // vma
  put<uint64_t>(out, reinterpret_cast<uintptr_t>(code));  // code_addr
  put<uint64_t>(out, sizeof kLoopCode);
  put<uint64_t>(out, 1);  // code_index
  out.insert(out.end(), name, name + sizeof name);
  out.insert(out.end(), kLoopCode, kLoopCode + sizeof kLoopCode);
  const bool ok = write(fd, out.data(), out.size()) == static_cast<ssize_t>(out.size());
  return close(fd) == 0 && ok;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  const std::string mode = argv[1];
  void* code = emit_code();
  if (code == nullptr) return 1;
  const bool named = mode == "perfmap"               ? write_perf_map(code)
                     : mode == "jitdump" && argc > 2 ? write_jitdump(argv[2], code)
                                                     : false;
  if (!named) return 1;
  std::printf("%p\n", code);
  std::fflush(stdout);

  const auto loop = reinterpret_cast<LoopFn>(code);
  const uint64_t until = monotonic_ns() + 500'000'000ULL;
  volatile uint64_t sink = 0;
  while (monotonic_ns() < until) sink = sink + loop(1'000'000);
  return 0;
}
