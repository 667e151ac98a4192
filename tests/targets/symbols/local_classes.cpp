// Code that lives in functions nested in other functions' DWARF: a lambda and a local struct's
// member function, each with an always_inline helper inlined into it. The enclosing function is
// itself always_inline, so DWARF has only its abstract instance, and the one concrete copy of the
// lambda's operator() sits inside that abstract instance (GCC's layout). An anonymous-namespace
// function has only an unqualified DW_AT_name. The tests find the helpers' lines by MARKER.
#include "local_classes.hpp"

namespace sprof_target {

volatile int local_sink;

__attribute__((always_inline)) inline int lambda_helper(int x) {
  local_sink = x;  // MARKER:lambda_helper
  return local_sink + 3;
}

__attribute__((always_inline)) inline int member_helper(int x) {
  local_sink = x * 7;  // MARKER:member_helper
  return local_sink - 1;
}

__attribute__((always_inline)) inline int with_local_classes(int x) {
  auto lambda = [](int v) __attribute__((noipa)) {
    return lambda_helper(v) * 2;  // MARKER:lambda_body
  };
  struct Local {
    __attribute__((noipa)) static int member(int v) {
      return member_helper(v) + 5;  // MARKER:member_body
    }
  };
  return lambda(x) + Local::member(x);
}

namespace {

__attribute__((noinline)) int hidden_function(int x) {
  local_sink = x;
  return local_sink ^ 0x55;
}

}  // namespace

__attribute__((noinline)) int local_classes_outer(int x) {
  return with_local_classes(x) + hidden_function(x);
}

}  // namespace sprof_target
