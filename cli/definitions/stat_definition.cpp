// `sprof stat`: counters of a command (or of running processes), as perf stat counts them.
#include "command_tail.hpp"
#include "definitions.hpp"
#include "help_formatter.hpp"

namespace sprof::cli {

CLI::App* define_stat(CLI::App& app, StatCommandOptions& options) {
  recorder::CountOptions& count = options.count;
  auto* cmd = app.add_subcommand(
      "stat",
      "Count a command's events (CPU time, context switches, page faults, and cycles, "
      "instructions, branches and cache misses where the machine has a PMU): for the "
      "whole process tree, then per thread");
  std::string event_names;
  for (const auto& [name, event] : recorder::counter_events()) {
    event_names += (event_names.empty() ? "" : ", ") + name;
  }
  cmd->add_option("-e,--event", count.events,
                  "Count only these events, comma-separated: " + event_names +
                      " (default: all of them that this machine has)")
      ->delimiter(',')
      ->transform(one_of(recorder::counter_events()))
      ->allow_extra_args(false)
      ->type_name("EVENT");
  cmd->add_option("-r,--repeat", options.repeat,
                  "Run the command N times and report each counter's mean and its spread "
                  "(+- relative standard deviation of the mean, as perf stat -r)")
      ->check(CLI::Range(1, 100000))
      ->type_name("N");
  auto* pids = cmd->add_option("-p,--pid", count.attach_pids,
                               "Count this running process (all its threads and what they "
                               "create) instead of a command; repeatable")
                   ->allow_extra_args(false)
                   ->type_name("PID");
  cmd->add_option("-d,--duration", count.duration_s,
                  "With -p: stop counting after SECS seconds (default: when the processes end, "
                  "or Ctrl-C)")
      ->check(CLI::PositiveNumber)
      ->needs(pids)
      ->type_name("SECS");
  cmd->add_flag("-j,--json", options.json,
                "Write the counts as JSON (one object; stable keys, for scripts and CI)");
  cmd->add_option("-o,--output", options.output,
                  "Write the counts to FILE instead of stderr (the command keeps stdout and "
                  "stderr to itself)")
      ->type_name("FILE");
  add_verbosity_options(*cmd, options.verbosity);
  cmd->add_option("command", count.command,
                  "The command to count and its arguments, exactly as typed: everything from "
                  "the first word that is not an option of sprof (or after --). Leading "
                  "NAME=VALUE words set its environment.")
      ->type_name("COMMAND");
  cmd->parse_complete_callback([&options] {
    recorder::CountOptions& c = options.count;
    take_environment_assignments(c.command, c.environment);
    if (c.command.empty() == c.attach_pids.empty()) {
      throw CLI::ValidationError("command", "give a command to count, or -p PID (not both)");
    }
    if (options.repeat > 1 && !c.attach_pids.empty()) {
      throw CLI::ValidationError("--repeat", "repeats a command; it cannot repeat -p");
    }
  });
  return cmd;
}

}  // namespace sprof::cli
