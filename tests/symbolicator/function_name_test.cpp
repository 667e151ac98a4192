#include "sprof/symbolicator/function_name.hpp"

#include <doctest/doctest.h>

namespace sprof::symbolicator {
namespace {

TEST_CASE("GCC's clone suffixes are dropped from demangled and raw names") {
  CHECK(without_clone_suffix("ns::f(int) [clone .isra.0] [clone .cold]") == "ns::f(int)");
  CHECK(without_clone_suffix("ns::f(int) [clone .cold]") == "ns::f(int)");
  CHECK(without_clone_suffix("main.cold") == "main");
  CHECK(without_clone_suffix("helper.part.0") == "helper");
  CHECK(without_clone_suffix("helper.isra.0.cold") == "helper");
  CHECK(without_clone_suffix("do_lookup.constprop.0") == "do_lookup");
}

TEST_CASE("names with dots that are not clone suffixes are kept") {
  CHECK(without_clone_suffix("ns::f(int)") == "ns::f(int)");
  CHECK(without_clone_suffix("_dl_start.final") == "_dl_start.final");
  CHECK(without_clone_suffix("x.1") == "x.1");
  CHECK(without_clone_suffix(".cold") == ".cold");
  CHECK(without_clone_suffix("") == "");
  CHECK(without_clone_suffix("f.") == "f.");
}

}  // namespace
}  // namespace sprof::symbolicator
