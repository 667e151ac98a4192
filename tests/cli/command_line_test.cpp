// sprof's command line as people type it (cli/definitions): the command starts at the first
// word that is not one of sprof's options, however much its own flags look like sprof's.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "definitions/command_tail.hpp"
#include "definitions/definitions.hpp"
#include "definitions/help_formatter.hpp"

using namespace sprof::cli;
using Args = std::vector<std::string>;

namespace {

// Parses `argv` (without the program name) as main does; returns the parse error, or "".
std::string parse(Commands& commands, const Args& args) {
  const SprofApp sprof = make_sprof_app(commands);
  Args argv{"sprof"};
  argv.insert(argv.end(), args.begin(), args.end());
  const Args split = arguments_for_parser(argv, *sprof.app, sprof.command_runners);
  std::vector<const char*> c_argv;
  for (const auto& a : split) c_argv.push_back(a.c_str());
  try {
    sprof.app->parse(static_cast<int>(c_argv.size()), c_argv.data());
  } catch (const CLI::ParseError& e) {
    return e.what();
  }
  return {};
}

}  // namespace

TEST_CASE("the command starts at the first word that is not an option of sprof") {
  Commands c;
  const SprofApp sprof = make_sprof_app(c);
  const CLI::App& record = *sprof.record;
  auto split = [&](const Args& args) { return split_at_command(args, record); };

  auto s = split({"-o", "out.json", "ls", "-la"});
  CHECK(s.options == Args{"-o", "out.json"});
  CHECK(s.command == Args{"ls", "-la"});
  // The command's flags that sprof also has stay the command's.
  s = split({"-s", "./x", "-o", "y", "-p", "3", "-r", "5", "-a"});
  CHECK(s.options == Args{"-s"});
  CHECK(s.command == Args{"./x", "-o", "y", "-p", "3", "-r", "5", "-a"});
  // Values attached or given with '=', clusters of flags, a cluster ending in a value option.
  CHECK(split({"-oout", "--rate=10", "-sq", "app"}).command == Args{"app"});
  s = split({"-so", "out", "app", "-x"});
  CHECK(s.options == Args{"-so", "out"});
  CHECK(s.command == Args{"app", "-x"});
  CHECK(split({"--output", "o", "--event", "task-clock", "app"}).command == Args{"app"});
  // A flag with an optional value takes it only with '='.
  s = split({"--include-args", "3", "app"});
  CHECK(s.options == Args{"--include-args"});
  CHECK(s.command == Args{"3", "app"});
  CHECK(split({"--include-args=3", "app"}).command == Args{"app"});
  // "--" still ends sprof's options, and everything after it is the command, "--" included.
  s = split({"-s", "--", "./x", "--", "-o"});
  CHECK(s.options == Args{"-s"});
  CHECK(s.command == Args{"./x", "--", "-o"});
  // No command (attach), and unknown options left for CLI11 to refuse.
  s = split({"-p", "12", "-d", "3"});
  CHECK(s.options == Args{"-p", "12", "-d", "3"});
  CHECK(s.command.empty());
  CHECK(split({"--bogus", "app"}).options == Args{"--bogus"});
}

TEST_CASE("only the subcommands that run a command are split, and others parse as before") {
  Commands c;
  const SprofApp sprof = make_sprof_app(c);
  auto for_parser = [&](const Args& argv) {
    return arguments_for_parser(argv, *sprof.app, sprof.command_runners);
  };
  CHECK(for_parser({"sprof", "record", "-o", "f", "ls", "-la"}) ==
        Args{"sprof", "record", "-o", "f", "--", "ls", "-la"});
  CHECK(for_parser({"sprof", "record", "-p", "1"}) == Args{"sprof", "record", "-p", "1"});
  CHECK(for_parser({"sprof", "load", "f.json", "-P", "3001"}) ==
        Args{"sprof", "load", "f.json", "-P", "3001"});
  CHECK(for_parser({"sprof", "--help"}) == Args{"sprof", "--help"});
}

TEST_CASE("leading NAME=VALUE words of the command set its environment") {
  Args command{"A=1", "B_2=x=y", "cmd", "C=3"};
  Args env;
  take_environment_assignments(command, env);
  CHECK(env == Args{"A=1", "B_2=x=y"});
  CHECK(command == Args{"cmd", "C=3"});
  for (const char* word : {"1A=2", "=x", "a-b=1", "./x=1"}) {
    Args not_env{word, "x"};
    Args none;
    take_environment_assignments(not_env, none);
    CHECK(none.empty());
  }
}

TEST_CASE("record parses commands, environments and sprof's options as typed") {
  Commands c;
  REQUIRE(parse(c, {"record", "-s", "-o", "p.json", "FOO=1", "env", "BAR=2", "printenv", "-o"})
              .empty());
  CHECK(c.record.output == "p.json");
  CHECK(c.record.save_only);
  CHECK(c.record.record.environment == Args{"FOO=1"});
  CHECK(c.record.record.command == Args{"env", "BAR=2", "printenv", "-o"});

  Commands d;
  REQUIRE(
      parse(d, {"record", "--include-args=2", "-e", "task-clock", "--", "./x", "-p", "1"}).empty());
  CHECK(d.record.record.process_name_args == 2);
  CHECK(d.record.record.event == sprof::recorder::SamplingEvent::kTaskClock);
  CHECK(d.record.record.command == Args{"./x", "-p", "1"});
  CHECK(d.record.record.attach_pids.empty());

  Commands e;
  REQUIRE(parse(e, {"record", "--include-args", "-p", "7"}).empty());
  CHECK(e.record.record.process_name_args > 100);  // all arguments
  CHECK(e.record.record.attach_pids == std::vector<int>{7});

  Commands f;
  CHECK(parse(f, {"record", "FOO=1"}).find("no command follows") != std::string::npos);
  Commands g;
  CHECK(parse(g, {"record", "--bogus", "ls"}).find("--bogus") != std::string::npos);
  Commands h;
  CHECK(parse(h, {"record", "-e", "bogus", "ls"}).find("cpu-clock, task-clock") !=
        std::string::npos);
  Commands i;
  CHECK(parse(i, {"record", "-v", "-q", "ls"}).find("excludes") != std::string::npos);

  Commands j;
  REQUIRE(parse(j, {"record", "ls"}).empty());
  CHECK(j.record.record.cpu_counts == sprof::recorder::CpuCounts::kAuto);
  Commands k;
  REQUIRE(parse(k, {"record", "--cpu-counts", "off", "ls"}).empty());
  CHECK(k.record.record.cpu_counts == sprof::recorder::CpuCounts::kOff);
  Commands l;
  REQUIRE(parse(l, {"record", "--cpu-counts=on", "ls"}).empty());
  CHECK(l.record.record.cpu_counts == sprof::recorder::CpuCounts::kOn);
  Commands m;
  CHECK(parse(m, {"record", "--cpu-counts", "always", "ls"}).find("auto") != std::string::npos);
}

TEST_CASE(
    "an option's choices are readable from its definition, for the man page and completions") {
  Commands c;
  const SprofApp sprof = make_sprof_app(c);
  std::vector<std::string> events;
  for (const auto& [name, event] : sprof::recorder::sampling_events()) events.push_back(name);
  CHECK(choices_of(sprof.record->get_option("--event")) == events);
  CHECK(choices_of(sprof.record->get_option("--unwind")) == Args{"dwarf", "fp"});
  CHECK(choices_of(sprof.record->get_option("--cpu-counts")) == Args{"auto", "on", "off"});
  // Options without a fixed set of values have none, even when they are checked otherwise.
  CHECK(choices_of(sprof.record->get_option("--output")).empty());
  CHECK(choices_of(sprof.record->get_option("--rate")).empty());
}

TEST_CASE("--flight-recorder takes a window with a unit and writes through --output-dir or -o") {
  Commands a;
  REQUIRE(parse(a, {"record", "--flight-recorder", "30s", "-p", "7"}).empty());
  CHECK(a.record.flight_recorder_s == doctest::Approx(30));
  CHECK(a.record.output_dir.empty());  // beside -o (rotating_output.hpp)
  Commands b;
  REQUIRE(parse(b, {"record", "--flight-recorder", "2m", "--output-dir", "w", "--max-files", "3",
                    "./server"})
              .empty());
  CHECK(b.record.flight_recorder_s == doctest::Approx(120));
  CHECK(b.record.output_dir == "w");
  CHECK(b.record.max_files == 3);
  CHECK(b.record.record.command == Args{"./server"});
  Commands c;
  REQUIRE(parse(c, {"record", "--flight-recorder", "500ms", "-o", "t.json.gz", "-a"}).empty());
  CHECK(c.record.flight_recorder_s == doctest::Approx(0.5));
  CHECK(c.record.output == "t.json.gz");

  // What it cannot be combined with, and what needs it (or --rotate).
  Commands d;
  CHECK(
      parse(d, {"record", "--flight-recorder", "30s", "--rotate", "1m", "--output-dir", "w", "ls"})
          .find("excludes") != std::string::npos);
  Commands e;
  CHECK(parse(e, {"record", "--flight-recorder", "30s", "--heap", "ls"}).find("excludes") !=
        std::string::npos);
  Commands f;
  CHECK(parse(f, {"record", "--flight-recorder", "30s", "--per-cpu-threads", "ls"})
            .find("excludes") != std::string::npos);
  Commands g;
  CHECK(
      parse(g, {"record", "--flight-recorder", "30s", "--output-dir", "w", "-o", "x.json.gz", "ls"})
          .find("not both") != std::string::npos);
  Commands h;
  CHECK(parse(h, {"record", "--output-dir", "w", "ls"}).find("needs --rotate or --flight") !=
        std::string::npos);
  Commands i;
  CHECK(parse(i, {"record", "--max-files", "2", "ls"}).find("needs --rotate or --flight") !=
        std::string::npos);
  Commands j;
  CHECK(parse(j, {"record", "--flight-recorder", "0s", "ls"}).find("--flight-recorder") !=
        std::string::npos);
}
