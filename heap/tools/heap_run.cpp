// heap/tools/heap_run.cpp: sprof-heap-run
//
// Runs a program with libsprof-heap.so preloaded and a fresh heap ring, drains the ring while
// the program runs, and writes a heap dump (sprof/heap/heap_dump.hpp) at the end. A developer
// and test tool for the interposer on its own; `sprof record --heap` does the same inside the
// recorder. The program's stdout and stderr pass through; the tool's summary goes to stderr.
//
//   sprof-heap-run [--interval BYTES | --all] [--stack-bytes N] [--ring-bytes N]
//                  [--capacity-log2 N] [--copy-stacks] [--library PATH] [--output FILE]
//                  -- program [args...]
// (--copy-stacks: kOptionCopyStacks, every record copies its stack instead of walking it.)
//   sprof-heap-run --show FILE      prints a dump's header and records, one per line
//
// Exit status: the program's (128 + signal if it was killed); 2 for usage or setup errors.
#include <spawn.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sprof/heap/heap_dump.hpp"
#include "sprof/heap/heap_ring.hpp"
#include "sprof/heap/ring_reader.hpp"

namespace {

using namespace sprof::heap;

struct Options {
  HeapRingOptions ring;
  std::string library;
  std::string output = "heap.dump";
  std::vector<std::string> command;
};

uint64_t now_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ULL + static_cast<uint64_t>(ts.tv_nsec);
}

std::optional<uint64_t> parse_number(std::string_view text) {
  if (text.empty()) return std::nullopt;
  uint64_t value = 0;
  for (const char c : text) {
    if (c < '0' || c > '9' || value > (~0ULL - 9) / 10) return std::nullopt;
    value = value * 10 + static_cast<uint64_t>(c - '0');
  }
  return value;
}

std::optional<Options> parse_options(int argc, char** argv) {
  Options o;
  struct NumericOption {
    const char* name;
    void (*set)(Options&, uint64_t);
  };
  static const NumericOption kNumeric[] = {
      {"--interval", [](Options& x, uint64_t v) { x.ring.sample_interval_bytes = v; }},
      {"--stack-bytes",
       [](Options& x, uint64_t v) { x.ring.stack_copy_bytes = static_cast<uint32_t>(v); }},
      {"--ring-bytes", [](Options& x, uint64_t v) { x.ring.data_bytes = v; }},
      {"--capacity-log2",
       [](Options& x, uint64_t v) { x.ring.tracked_capacity_log2 = static_cast<uint32_t>(v); }},
  };
  int i = 1;
  for (; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (a == "--") {
      ++i;
      break;
    }
    if (a == "--all") {
      o.ring.sample_interval_bytes = 0;
      continue;
    }
    if (a == "--copy-stacks") {
      o.ring.copy_stacks = true;
      continue;
    }
    if ((a == "--library" || a == "--output") && i + 1 < argc) {
      (a == "--library" ? o.library : o.output) = argv[++i];
      continue;
    }
    const NumericOption* option = nullptr;
    for (const auto& n : kNumeric)
      if (a == n.name) option = &n;
    if (option == nullptr) {
      std::fprintf(stderr, "sprof-heap-run: unknown option %s\n", argv[i]);
      return std::nullopt;
    }
    const auto value = i + 1 < argc ? parse_number(argv[i + 1]) : std::nullopt;
    if (!value) {
      std::fprintf(stderr, "sprof-heap-run: %s needs a number\n", argv[i]);
      return std::nullopt;
    }
    option->set(o, *value);
    ++i;
  }
  for (; i < argc; ++i) o.command.emplace_back(argv[i]);
  if (o.command.empty()) {
    std::fprintf(stderr, "usage: sprof-heap-run [options] -- program [args...]\n");
    return std::nullopt;
  }
  return o;
}

// The program's environment: ours plus the handshake variables (replacing any old ones).
std::vector<std::string> child_environment(const std::vector<std::string>& overrides) {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string_view entry = *e;
    bool replaced = false;
    for (const auto& o : overrides)
      replaced |= entry.substr(0, entry.find('=') + 1) == o.substr(0, o.find('=') + 1);
    if (!replaced) env.emplace_back(entry);
  }
  env.insert(env.end(), overrides.begin(), overrides.end());
  return env;
}

std::vector<char*> c_strings(std::vector<std::string>& strings) {
  std::vector<char*> out;
  out.reserve(strings.size() + 1);
  for (auto& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

int run(Options& o) {
  if (o.library.empty()) {
    auto located = locate_interposer("/proc/self/exe");
    if (!located) {
      std::fprintf(stderr, "sprof-heap-run: %s\n", located.error().message.c_str());
      return 2;
    }
    o.library = *located;
  }
  auto ring = MappedHeapRing::create(o.ring);
  if (!ring) {
    std::fprintf(stderr, "sprof-heap-run: %s\n", ring.error().message.c_str());
    return 2;
  }
  auto reader = RingReader::open(ring->area());
  if (!reader) {
    std::fprintf(stderr, "sprof-heap-run: %s\n", reader.error().message.c_str());
    return 2;
  }
  auto overrides =
      heap_child_environment(o.library, ring->path_for_children(), std::getenv("LD_PRELOAD"));
  if (!overrides) {
    std::fprintf(stderr, "sprof-heap-run: %s\n", overrides.error().message.c_str());
    return 2;
  }
  FILE* out = std::fopen(o.output.c_str(), "wb");
  if (out == nullptr) {
    std::fprintf(stderr, "sprof-heap-run: cannot write %s: %s\n", o.output.c_str(),
                 std::strerror(errno));
    return 2;
  }
  // Placeholder prefix; rewritten with the final header at the end.
  auto prefix = encode_dump_prefix(reader->header_snapshot());
  std::fwrite(prefix.data(), 1, prefix.size(), out);

  auto env = child_environment(*overrides);
  auto envp = c_strings(env);
  auto argv = c_strings(o.command);
  pid_t pid = -1;
  if (const int err = posix_spawnp(&pid, argv[0], nullptr, nullptr, argv.data(), envp.data())) {
    std::fprintf(stderr, "sprof-heap-run: cannot run %s: %s\n", argv[0], std::strerror(err));
    std::fclose(out);
    return 2;
  }

  auto write_record = [&](const DrainedRecord& r) {
    std::fwrite(r.bytes.data(), 1, r.bytes.size(), out);
  };
  int status = 0;
  for (;;) {
    const size_t n = reader->drain(DrainOptions{now_ns(), 1'000'000'000, false}, write_record);
    const pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid) break;
    if (n == 0) usleep(2000);
  }
  reader->drain(DrainOptions{now_ns(), 0, true}, write_record);
  reader->close_for_writers();

  prefix = encode_dump_prefix(reader->header_snapshot());
  std::fseek(out, 0, SEEK_SET);
  std::fwrite(prefix.data(), 1, prefix.size(), out);
  std::fclose(out);

  const RingCounters c = reader->counters();
  const RingReaderStats& s = reader->stats();
  std::fprintf(stderr,
               "sprof-heap-run: attached=%llu allocations=%llu bytes=%llu sampled=%llu "
               "sampled_bytes=%llu free_records=%llu dropped=%llu untracked=%llu reentrant=%llu "
               "records=%llu malformed=%llu resyncs=%llu\n",
               static_cast<unsigned long long>(c.attached_processes),
               static_cast<unsigned long long>(c.allocations),
               static_cast<unsigned long long>(c.allocated_bytes),
               static_cast<unsigned long long>(c.sampled_allocations),
               static_cast<unsigned long long>(c.sampled_bytes),
               static_cast<unsigned long long>(c.free_records),
               static_cast<unsigned long long>(c.dropped_records),
               static_cast<unsigned long long>(c.untracked_samples),
               static_cast<unsigned long long>(c.reentrant_calls),
               static_cast<unsigned long long>(s.records),
               static_cast<unsigned long long>(s.malformed_records),
               static_cast<unsigned long long>(s.resyncs));
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return WEXITSTATUS(status);
}

const char* function_name(AllocFunction f) {
  static const char* const kNames[] = {
      "malloc",        "calloc",    "realloc",    "reallocarray",      "posix_memalign",
      "aligned_alloc", "memalign",  "valloc",     "pvalloc",           "mi_malloc",
      "mi_calloc",     "mi_zalloc", "mi_realloc", "mi_malloc_aligned", "mi_zalloc_aligned"};
  static_assert(std::size(kNames) == static_cast<size_t>(AllocFunction::kCount));
  const auto i = static_cast<size_t>(f);
  return i < std::size(kNames) ? kNames[i] : "?";
}

void print_event(const HeapEvent& event) {
  if (const auto* a = std::get_if<HeapAlloc>(&event)) {
    uint64_t ret = 0;
    if (a->stack.size() >= 8) std::memcpy(&ret, a->stack.data(), 8);
    std::printf("%" PRIu64 " %u/%u %s 0x%" PRIx64 " size=%" PRIu64 " old=0x%" PRIx64
                " align=%" PRIu64 " ip=0x%" PRIx64 " sp=0x%" PRIx64 " ret=0x%" PRIx64
                " stack=%zu end=0x%" PRIx64 " flags=%u\n",
                a->time_ns, a->pid, a->tid, function_name(a->function), a->address, a->size,
                a->old_address, a->alignment, a->regs.ip, a->regs.sp, ret, a->stack.size(),
                a->stack_end, a->flags);
  } else if (const auto* f = std::get_if<HeapFree>(&event)) {
    std::printf("%" PRIu64 " %u/%u free 0x%" PRIx64 "\n", f->time_ns, f->pid, f->tid, f->address);
  } else if (const auto* at = std::get_if<HeapAttach>(&event)) {
    std::printf("%" PRIu64 " %u/%u attach %s ppid=%u %.*s\n", at->time_ns, at->pid, at->tid,
                at->how == AttachHow::kFork ? "fork" : "start", at->ppid,
                static_cast<int>(at->exe.size()), at->exe.data());
  }
}

int show(const char* path) {
  std::ifstream in(path, std::ios::binary);
  const std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), {});
  auto dump = parse_heap_dump(bytes);
  if (!dump) {
    std::fprintf(stderr, "sprof-heap-run: %s: %s\n", path, dump.error().message.c_str());
    return 2;
  }
  const RingConfig& c = dump->header.config;
  std::printf("interval=%" PRIu64 " stack_copy=%u data_bytes=%" PRIu64 "\n",
              c.sample_interval_bytes, c.stack_copy_bytes, c.data_bytes);
  DumpReadStats stats;
  auto walked = for_each_dump_record(*dump, print_event, stats);
  std::printf("records=%" PRIu64 " malformed=%" PRIu64 "\n", stats.records,
              stats.malformed_records);
  if (!walked) {
    std::fprintf(stderr, "sprof-heap-run: %s: %s\n", path, walked.error().message.c_str());
    return 2;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 3 && std::string_view(argv[1]) == "--show") return show(argv[2]);
  auto options = parse_options(argc, argv);
  if (!options) return 2;
  return run(*options);
}
