// Target for the symbolication API tests: a few functions with C names, so tests find them in the
// symbol table by name, disassemble them (/asm/v1) and serve this file back (/source/v1).
#include <cstddef>
#include <cstdint>
#include <cstdio>

extern "C" __attribute__((noinline)) uint64_t api_target_sum(const uint64_t* values, size_t count) {
  uint64_t sum = 0;
  for (size_t i = 0; i < count; ++i) sum += values[i] * 3 + (sum >> 7);
  return sum;
}

static inline uint64_t api_target_square(uint64_t x) { return x * x; }

extern "C" __attribute__((noinline)) uint64_t api_target_squares(uint64_t n) {
  uint64_t total = 0;
  for (uint64_t i = 0; i < n; ++i) total += api_target_square(i ^ total);
  return total;
}

int main(int argc, char**) {
  uint64_t values[16];
  for (size_t i = 0; i < 16; ++i) values[i] = i * static_cast<uint64_t>(argc);
  std::printf("%llu %llu\n", static_cast<unsigned long long>(api_target_sum(values, 16)),
              static_cast<unsigned long long>(api_target_squares(static_cast<uint64_t>(argc))));
  return 0;
}
