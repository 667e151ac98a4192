#include "process/launcher.hpp"

#include <doctest/doctest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>

#include "process/proc_maps.hpp"

using sprof::Errc;
using sprof::recorder::Launcher;

TEST_CASE("launched child waits for release, then execs and reports its exit code") {
  auto child = Launcher::spawn({"/bin/sh", "-c", "exit 7"});
  REQUIRE(child.has_value());
  REQUIRE(child->pid() > 0);
  // Before release the child is still our fork, not the shell.
  auto before = child->try_wait();
  REQUIRE(before.has_value());
  CHECK_FALSE(before->has_value());

  REQUIRE(child->release().has_value());
  auto status = child->wait_for_exit();
  REQUIRE(status.has_value());
  CHECK_FALSE(status->signaled);
  CHECK(status->code == 7);
  CHECK(status->shell_code() == 7);
  // Cached after reaping.
  CHECK(child->wait_for_exit()->code == 7);
}

TEST_CASE("has_exited tells that the child exited without reaping it") {
  auto child = Launcher::spawn({"/bin/sh", "-c", "exit 3"});
  REQUIRE(child.has_value());
  auto running = child->has_exited();
  REQUIRE(running.has_value());
  CHECK_FALSE(*running);  // not released yet: still our fork, waiting
  REQUIRE(child->release().has_value());
  bool exited = false;
  for (int i = 0; i < 1000 && !exited; ++i) {
    auto r = child->has_exited();
    REQUIRE(r.has_value());
    exited = *r;
    if (!exited) usleep(1000);
  }
  REQUIRE(exited);
  // Still a zombie for us to reap: a WNOHANG wait finds it, with its status.
  siginfo_t info{};
  REQUIRE(waitid(P_PID, static_cast<id_t>(child->pid()), &info, WEXITED | WNOHANG | WNOWAIT) == 0);
  CHECK(info.si_pid == child->pid());
  auto status = child->try_wait();
  REQUIRE(status.has_value());
  REQUIRE(status->has_value());
  CHECK((*status)->code == 3);
  CHECK(*child->has_exited());  // known from the cached status once reaped
}

TEST_CASE("release reports a program that cannot be executed") {
  auto child = Launcher::spawn({"sprof-no-such-program-xyz", "arg"});
  REQUIRE(child.has_value());
  auto released = child->release();
  REQUIRE_FALSE(released.has_value());
  CHECK(released.error().code == Errc::kExecFailed);
  CHECK(released.error().sys_errno == ENOENT);
  CHECK(released.error().message ==
        "cannot execute 'sprof-no-such-program-xyz': No such file or directory");
  auto status = child->wait_for_exit();
  REQUIRE(status.has_value());
  CHECK(status->code == 127);
}

TEST_CASE("the child starts with default signal dispositions and an empty mask") {
  // Ignore SIGTERM and block SIGUSR1 here; the exec'd shell must see neither.
  struct sigaction ign {
  }, old_term{};
  ign.sa_handler = SIG_IGN;
  ::sigaction(SIGTERM, &ign, &old_term);
  sigset_t block, old_mask;
  ::sigemptyset(&block);
  ::sigaddset(&block, SIGUSR1);
  ::sigprocmask(SIG_BLOCK, &block, &old_mask);

  // SigBlk/SigIgn of /proc/self/status are hex masks, inherited by grep through exec.
  auto child = Launcher::spawn({"/bin/sh", "-c",
                                "grep -qx 'SigBlk:[[:space:]]*0*' /proc/self/status && "
                                "grep -qx 'SigIgn:[[:space:]]*0*' /proc/self/status"});
  ::sigaction(SIGTERM, &old_term, nullptr);
  ::sigprocmask(SIG_SETMASK, &old_mask, nullptr);
  REQUIRE(child.has_value());
  REQUIRE(child->release().has_value());
  auto status = child->wait_for_exit();
  REQUIRE(status.has_value());
  CHECK(status->code == 0);
}

TEST_CASE("signals can be forwarded to the child and its death by signal is reported") {
  auto child = Launcher::spawn({"/bin/sleep", "30"});
  REQUIRE(child.has_value());
  REQUIRE(child->release().has_value());
  REQUIRE(child->send_signal(SIGTERM).has_value());
  auto status = child->wait_for_exit();
  REQUIRE(status.has_value());
  CHECK(status->signaled);
  CHECK(status->signal == SIGTERM);
  CHECK(status->shell_code() == 128 + SIGTERM);
  CHECK(child->send_signal(SIGTERM).has_value());  // no-op once reaped
}

TEST_CASE("a child that is never released is reaped when dropped") {
  pid_t pid = 0;
  {
    auto child = Launcher::spawn({"/bin/true"});
    REQUIRE(child.has_value());
    pid = child->pid();
  }
  // Reaped: the pid is no longer our child.
  const pid_t waited = ::waitpid(pid, nullptr, WNOHANG);
  const int err = errno;
  CHECK(waited == -1);
  CHECK(err == ECHILD);
}

TEST_CASE("spawn refuses an empty command line") {
  auto child = Launcher::spawn({});
  REQUIRE_FALSE(child.has_value());
  CHECK(child.error().code == Errc::kInvalidArgument);
}
