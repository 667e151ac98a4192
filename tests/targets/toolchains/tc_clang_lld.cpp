// Toolchain target (tests/targets/toolchains.cmake): C++ built with
// `clang++ -O2 -g -fuse-ld=lld`. LLD lays the executable LOAD segment out with
// p_vaddr != p_offset, which GNU ld does not do for small programs.
//
// Known call structure, every named function noinline so that it is a frame:
//   main -> run_workers -> thread "words": words_worker -> count_words (inlines std::string,
//                                          std::unordered_map) -> word_weight
//                       -> thread "sums":  sums_worker -> fill_values (std::vector) -> mix_leaf
//                                          (hot leaf), a lambda through apply_to_all and
//                                          Doubler::apply (a virtual method)
// Usage: tc_clang_lld [milliseconds, default 1000]. Each thread prints what it did:
//   words: rounds=R words=W distinct=D weight_calls=N cpu_ms=C
//   sums: rounds=R mix_calls=M closure_calls=K checksum=X cpu_ms=C
#include <time.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <vector>

namespace tc {

using Clock = std::chrono::steady_clock;

constexpr std::string_view kText =
    "the quick brown fox jumps over the lazy dog while the cat sleeps under a warm sun and the "
    "fox runs back to the forest";

uint64_t thread_cpu_ms() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return uint64_t(t.tv_sec) * 1000 + uint64_t(t.tv_nsec) / 1000000;
}

__attribute__((noinline)) uint64_t word_weight(std::string_view word) {
  uint64_t h = 7;
  for (const char c : word) h = h * 31 + uint8_t(c);
  return h;
}

__attribute__((noinline)) size_t count_words(std::string_view text,
                                             std::unordered_map<std::string, uint64_t>& counts,
                                             uint64_t& weight_calls) {
  size_t words = 0;
  size_t start = 0;
  while (start < text.size()) {
    const size_t end = std::min(text.find(' ', start), text.size());
    if (end > start) {
      const std::string_view word = text.substr(start, end - start);
      const uint64_t weight = word_weight(word);
      ++weight_calls;
      counts[std::string(word)] += weight & 0xff;
      ++words;
    }
    start = end + 1;
  }
  return words;
}

__attribute__((noinline)) void words_worker(Clock::time_point deadline, char* report, size_t size) {
  std::unordered_map<std::string, uint64_t> counts;
  uint64_t rounds = 0, words = 0, weight_calls = 0;
  while (Clock::now() < deadline) {
    std::string text(kText);
    text += " round" + std::to_string(rounds % 64);
    words += count_words(text, counts, weight_calls);
    ++rounds;
  }
  std::snprintf(report, size,
                "words: rounds=%llu words=%llu distinct=%zu weight_calls=%llu cpu_ms=%llu",
                (unsigned long long)rounds, (unsigned long long)words, counts.size(),
                (unsigned long long)weight_calls, (unsigned long long)thread_cpu_ms());
}

struct Transform {
  virtual ~Transform() = default;
  virtual uint64_t apply(uint64_t x) const = 0;
};

struct Doubler final : Transform {
  uint64_t offset = 3;
  __attribute__((noinline)) uint64_t apply(uint64_t x) const override { return x * 2 + offset; }
};

__attribute__((noinline)) uint64_t mix_leaf(uint64_t x) {
  for (int i = 0; i < 64; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
  }
  return x;
}

__attribute__((noinline)) std::vector<uint64_t> fill_values(uint64_t seed, size_t n,
                                                            uint64_t& mix_calls) {
  std::vector<uint64_t> values;
  values.reserve(n);
  uint64_t x = seed | 1;
  for (size_t i = 0; i < n; ++i) {
    x = mix_leaf(x);
    ++mix_calls;
    values.push_back(x);
  }
  return values;
}

template <typename F>
__attribute__((noinline)) void apply_to_all(std::vector<uint64_t>& values, F f) {
  for (uint64_t& v : values) v = f(v);
}

__attribute__((noinline)) void sums_worker(Clock::time_point deadline, const Transform& transform,
                                           char* report, size_t size) {
  uint64_t rounds = 0, mix_calls = 0, closure_calls = 0, checksum = 0;
  while (Clock::now() < deadline) {
    std::vector<uint64_t> values = fill_values(rounds, 256, mix_calls);
    apply_to_all(values, [&](uint64_t v) {
      ++closure_calls;
      return transform.apply(v) ^ (v >> 3);
    });
    for (const uint64_t v : values) checksum += v;
    ++rounds;
  }
  std::snprintf(
      report, size, "sums: rounds=%llu mix_calls=%llu closure_calls=%llu checksum=%llu cpu_ms=%llu",
      (unsigned long long)rounds, (unsigned long long)mix_calls, (unsigned long long)closure_calls,
      (unsigned long long)checksum, (unsigned long long)thread_cpu_ms());
}

__attribute__((noinline)) void run_workers(std::chrono::milliseconds duration) {
  const Clock::time_point deadline = Clock::now() + duration;
  char words_report[256] = {};
  char sums_report[256] = {};
  const Doubler doubler;
  std::thread words(words_worker, deadline, words_report, sizeof words_report);
  std::thread sums(sums_worker, deadline, std::cref(doubler), sums_report, sizeof sums_report);
  words.join();
  sums.join();
  std::printf("%s\n%s\n", words_report, sums_report);
}

}  // namespace tc

int main(int argc, char** argv) {
  const long ms = argc > 1 ? std::strtol(argv[1], nullptr, 10) : 1000;
  tc::run_workers(std::chrono::milliseconds(ms));
  return 0;
}
