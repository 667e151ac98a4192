// Target program for the symbolicator tests. The tests find these functions by name in the
// program's symbol table and check what symbolication says about their addresses.
#include <cstdio>

#include "inline_chain.hpp"
#include "local_classes.hpp"
#include "shared_lib.hpp"

namespace sprof_target {

volatile int main_sink;

__attribute__((noinline)) int named_leaf_function(int x) {
  main_sink = x;
  return main_sink + 1;
}

template <typename T>
__attribute__((noinline)) T templated_function(T x) {
  main_sink = static_cast<int>(x);
  return x + static_cast<T>(main_sink);
}

}  // namespace sprof_target

extern "C" __attribute__((noinline)) int c_linkage_function(int x) {
  return sprof_target::named_leaf_function(x) * 2;
}

int main(int argc, char** argv) {
  (void)argv;
  int total = c_linkage_function(argc);
  total += sprof_target::templated_function<long>(argc);
  total += sprof_target::inline_chain_outer(argc);
  total += sprof_target::local_classes_outer(argc);
  total += sprof_shared_c_function(argc);
  total += sprof_shared_public(argc);
  std::printf("%d\n", total);
  return 0;
}
