// hp_churn THREADS PAIRS: each of THREADS threads does PAIRS malloc(16)/free pairs, then the
// program prints "allocations=<THREADS * PAIRS>", its own count, for record-all tests that
// compare what sprof recorded with what the program did.
#include <pthread.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "heap_target.hpp"

namespace {

void* churn(void* pairs) {
  const unsigned long n = *static_cast<unsigned long*>(pairs);
  for (unsigned long i = 0; i < n; ++i) {
    void* p = std::malloc(16);
    keep(p);
    std::free(p);
  }
  return nullptr;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: hp_churn THREADS PAIRS\n");
    return 2;
  }
  const unsigned long threads = std::strtoul(argv[1], nullptr, 10);
  unsigned long pairs = std::strtoul(argv[2], nullptr, 10);
  // Made before the churn, so the program's own bookkeeping adds known allocations only.
  std::vector<pthread_t> ids(threads);
  for (pthread_t& id : ids) pthread_create(&id, nullptr, churn, &pairs);
  for (pthread_t& id : ids) pthread_join(id, nullptr);
  std::printf("allocations=%lu\n", threads * pairs);
  return 0;
}
