#include "sprof/core/result.hpp"

#include <doctest/doctest.h>

using namespace sprof;

namespace {
Result<int> parse_positive(int v) {
  if (v <= 0) return fail(Errc::kInvalidArgument, "not positive: " + std::to_string(v));
  return v;
}
Result<int> doubled(int v) {
  SPROF_TRY(int x, parse_positive(v));
  return x * 2;
}
}  // namespace

TEST_CASE("SPROF_TRY propagates errors and unwraps values") {
  CHECK(doubled(4).value() == 8);
  auto r = doubled(-1);
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error().code == Errc::kInvalidArgument);
  CHECK(r.error().message == "not positive: -1");
}

TEST_CASE("errors from errno name the operation and map the code") {
  auto e = Error::from_errno("open(/nope)", ENOENT);
  CHECK(e.code == Errc::kNotFound);
  CHECK(e.message.find("open(/nope): ") == 0);
  CHECK(e.with_context("loading").message.find("loading: open(/nope)") == 0);
}
