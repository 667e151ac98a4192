// A shared library for the symbolicator tests: one C-linkage and one C++ member function.
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
