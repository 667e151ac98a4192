// A shared library for the symbolicator tests: one C-linkage and one C++ member function, and a
// C function with a public weak alias the way glibc exports its functions (`__impl` + `name`).
#include "shared_lib.hpp"

namespace sprof_shared {

volatile int shared_sink;

__attribute__((noinline)) int Widget::compute(int x) const {
  shared_sink = x + seed_;
  return shared_sink * 2;
}

}  // namespace sprof_shared

extern "C" __attribute__((noinline)) int sprof_shared_c_function(int x) {
  sprof_shared::Widget w(x);
  return w.compute(x + 1) + 3;
}

// glibc's pattern: the implementation's own name is reserved, the public name a weak alias.
extern "C" __attribute__((noinline)) int __sprof_shared_impl(int x) {
  sprof_shared::shared_sink = x;
  return sprof_shared::shared_sink + 9;
}
extern "C" int sprof_shared_public(int x) __attribute__((weak, alias("__sprof_shared_impl")));
