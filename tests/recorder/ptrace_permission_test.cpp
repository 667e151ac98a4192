// tests/recorder/ptrace_permission_test.cpp: when `sprof record --heap -p` refuses to attach,
// and what it says.
#include "heap/ptrace_permission.hpp"

#include <doctest/doctest.h>

using sprof::recorder::parse_tracer_pid;
using sprof::recorder::ptrace_refusal;
using sprof::recorder::PtraceFacts;

TEST_CASE("ptrace_refusal: names the Yama setting or the other tracer") {
  CHECK_FALSE(ptrace_refusal(42, PtraceFacts{0, 0, false}).has_value());
  CHECK_FALSE(ptrace_refusal(42, PtraceFacts{std::nullopt, 0, false}).has_value());
  // Scope 1 is left to PTRACE_SEIZE: a descendant or a PR_SET_PTRACER target may pass.
  CHECK_FALSE(ptrace_refusal(42, PtraceFacts{1, 0, false}).has_value());
  CHECK_FALSE(ptrace_refusal(42, PtraceFacts{2, 0, true}).has_value());

  const auto scope2 = ptrace_refusal(42, PtraceFacts{2, 0, false});
  REQUIRE(scope2.has_value());
  CHECK(scope2->find("process 42") != std::string::npos);
  CHECK(scope2->find("kernel.yama.ptrace_scope is 2") != std::string::npos);
  CHECK(scope2->find("CAP_SYS_PTRACE") != std::string::npos);

  const auto scope3 = ptrace_refusal(42, PtraceFacts{3, 0, true});
  REQUIRE(scope3.has_value());
  CHECK(scope3->find("kernel.yama.ptrace_scope is 3") != std::string::npos);

  const auto traced = ptrace_refusal(42, PtraceFacts{0, 777, true});
  REQUIRE(traced.has_value());
  CHECK(traced->find("already traced by process 777") != std::string::npos);
}

TEST_CASE("parse_tracer_pid reads the TracerPid line of /proc/PID/status") {
  CHECK(parse_tracer_pid("Name:\tx\nState:\tS (sleeping)\nTracerPid:\t0\nUid:\t0\n") == 0);
  CHECK(parse_tracer_pid("Name:\tx\nTracerPid:\t1234\nUid:\t0\n") == 1234);
  CHECK(parse_tracer_pid("Name:\tx\n") == 0);
}
