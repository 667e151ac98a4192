// hp_failed_alloc: asks every interposed allocation function for 1 PiB, more than any x86-64
// address space holds, so each fails whatever the overcommit setting; then allocates and frees
// one block of kGoodBytes. Prints "failed=N" (how many of the huge requests failed as their
// contracts say) and "good_bytes=N"; exit 1 if any huge request succeeded.
#include <malloc.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <new>

#include "heap_target.hpp"

namespace {

constexpr size_t kHuge = size_t{1} << 50;
constexpr size_t kGoodBytes = 4096;

// Read at run time, so the compiler cannot reason about the huge requests.
volatile size_t g_huge = kHuge;

int g_failed = 0;
int g_succeeded = 0;

void expect_null(void* p) {
  keep(p);
  if (p == nullptr) {
    ++g_failed;
  } else {
    ++g_succeeded;
    std::free(p);
  }
}

}  // namespace

int main(int, char**) {
  print_identity();
  const size_t huge = g_huge;
  expect_null(std::malloc(huge));
  expect_null(std::calloc(huge >> 20, size_t{1} << 20));
  void* small = std::malloc(16);
  void* grown = std::realloc(small, huge);  // fails: `small` stays allocated
  expect_null(grown);
  expect_null(reallocarray(small, huge >> 20, size_t{1} << 20));
  std::free(small);
  void* out = nullptr;
  expect_null(posix_memalign(&out, 64, huge) == ENOMEM ? nullptr : out);
  expect_null(std::aligned_alloc(64, huge));
  expect_null(memalign(64, huge));
  expect_null(valloc(huge));
  expect_null(pvalloc(huge));
  expect_null(new (std::nothrow) char[huge]);
  expect_null(::operator new (huge, std::align_val_t{64}, std::nothrow));
  void* good = std::malloc(kGoodBytes);
  keep(good);
  std::free(good);
  std::printf("failed=%d good_bytes=%zu\n", g_failed, kGoodBytes);
  return g_succeeded == 0 ? 0 : 1;
}
