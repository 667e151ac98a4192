// A forced inline chain for the symbolicator tests: inline_chain_outer -> chain_a -> chain_b ->
// chain_c, every step always_inline, so chain_c's code sits inside inline_chain_outer under three
// nested DW_TAG_inlined_subroutine scopes. The tests find the call lines by the MARKER comments,
// so the file may be edited freely.
#include "inline_chain.hpp"

namespace sprof_target {

volatile int chain_sink;

__attribute__((always_inline)) inline int chain_c(int x) {
  chain_sink = x;  // MARKER:body_c
  return chain_sink * 3 + x;
}

__attribute__((always_inline)) inline int chain_b(int x) {
  const int y = chain_c(x + 11);  // MARKER:call_c
  return y ^ chain_sink;
}

__attribute__((always_inline)) inline int chain_a(int x) {
  const int y = chain_b(x * 5);  // MARKER:call_b
  return y - chain_sink;
}

__attribute__((noinline)) int inline_chain_outer(int x) {
  const int y = chain_a(x - 7);  // MARKER:call_a
  return y + 1;
}

}  // namespace sprof_target
