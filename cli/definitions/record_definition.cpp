// `sprof record`: every option of a recording, and the command it runs.
#include <map>

#include "command_tail.hpp"
#include "definitions.hpp"
#include "help_formatter.hpp"

namespace sprof::cli {

namespace {

// --include-args without a value: all arguments (this many at most).
constexpr int kAllArguments = 1000;

}  // namespace

CLI::App* define_record(CLI::App& app, RecordCommandOptions& options) {
  recorder::RecordOptions& record = options.record;
  auto* cmd = app.add_subcommand("record",
                                 "Record a command (or processes, or the system) and "
                                 "open its profile");
  cmd->add_option("-o,--output", options.output,
                  "Profile file to write (gzip when it ends in .gz; default profile.json.gz)")
      ->type_name("FILE");
  cmd->add_option("-r,-F,--rate,--freq", record.frequency_hz, "Sampling rate in Hz (default 1000)")
      ->check(CLI::Range(1, 100000))
      ->type_name("HZ");
  std::string event_names;
  for (const auto& [name, event] : recorder::sampling_events()) {
    event_names += (event_names.empty() ? "" : ", ") + name;
  }
  cmd->add_option("-e,--event", record.event,
                  "Event to sample on: " + event_names +
                      " (default: cycles where the machine has a PMU, else cpu-clock); only "
                      "cpu-clock and task-clock count CPU time")
      ->transform(one_of(recorder::sampling_events()))
      ->type_name("EVENT");
  cmd->add_flag("-s,--save-only", options.save_only, "Save the profile and exit, no server");
  cmd->add_flag_callback(
      "--no-presymbolicate", [&options] { options.presymbolicate = false; },
      "Save without embedded symbols (faster; names then need sprof's server and the binaries)");
  cmd->add_option("--unwind,--call-graph", record.unwind,
                  "User stack unwinding: dwarf (default) or fp")
      ->transform(one_of(std::vector<std::pair<std::string, recorder::UnwindMode>>{
          {"dwarf", recorder::UnwindMode::kDwarf}, {"fp", recorder::UnwindMode::kFramePointer}}))
      ->type_name("dwarf|fp");
  cmd->add_flag_callback(
      "-g", [] {}, "Accepted for perf's habit: sprof always records call stacks");
  cmd->add_option("--stack-size", record.stack_size,
                  "Bytes of user stack copied per sample for dwarf unwinding (default 16384)")
      ->check(CLI::Range(512, 65528))
      ->type_name("BYTES");
  cmd->add_flag_callback(
      "--no-off-cpu", [&record] { record.off_cpu = false; },
      "Do not record where threads block (off-CPU stacks as Idle samples)");
  cmd->add_option("--cpu-counts", record.cpu_counts,
                  "Record the scheduler's count of each thread's CPU time, which keeps a VM's "
                  "stalled CPU out of thread CPU (root only; costs ~0.1 us per scheduler "
                  "update): auto (default: on a VM), on or off")
      ->transform(one_of(std::vector<std::pair<std::string, recorder::CpuCounts>>{
          {"auto", recorder::CpuCounts::kAuto},
          {"on", recorder::CpuCounts::kOn},
          {"off", recorder::CpuCounts::kOff}}))
      ->type_name("auto|on|off");
  auto* heap =
      cmd->add_flag(
             "--heap{sampled}", record.heap,
             "Record allocations too (malloc & co, by a library the command "
             "loads, or that ptrace loads into a running -p PID, whose earlier "
             "allocations stay unknown): --heap samples one per --heap-interval bytes on average, "
             "--heap=all records every one")
          ->transform(one_of(std::vector<std::pair<std::string, recorder::HeapMode>>{
              {"sampled", recorder::HeapMode::kSampled}, {"all", recorder::HeapMode::kAll}}))
          ->option_text(optional_value_text("all"));
  cmd->add_option("--heap-interval", record.heap_interval_bytes,
                  "With --heap: mean bytes allocated between two sampled allocations, as 512K "
                  "or 1M (default 512K)")
      ->transform(CLI::AsSizeValue(false))
      ->type_name("BYTES")
      ->needs(heap);
  cmd->add_flag("--heap-free-stacks", record.heap_free_stacks,
                "With --heap: record where each recorded free happens too (the profiler's "
                "Deallocation Sites); every recorded free then copies its stack")
      ->needs(heap);
  cmd->add_option("--heap-stacks", record.heap_copy_stacks,
                  "With --heap: how allocation stacks are taken. walk (the default): the "
                  "interposer follows the program's .eh_frame and records the return addresses, "
                  "copying the stack only where it cannot; copy: every record copies the top of "
                  "the stack for sprof to unwind (slower; to compare)")
      ->transform(
          one_of(std::vector<std::pair<std::string, bool>>{{"walk", false}, {"copy", true}}))
      ->type_name("walk|copy")
      ->needs(heap);
  cmd->add_flag_callback(
         "--no-cpu", [&record] { record.sample_cpu = false; },
         "With --heap: record allocations only, no CPU samples")
      ->needs(heap);
  auto* pids = cmd->add_option("-p,--pid", record.attach_pids,
                               "Record this running process instead of a command; repeatable")
                   ->allow_extra_args(false)
                   ->type_name("PID");
  cmd->add_flag("-a,--all", record.system_wide,
                "Record every process on the system (root or perf_event_paranoid <= 0)")
      ->excludes(pids);
  cmd->add_option("-d,--duration", record.duration_s,
                  "Stop recording after SECS seconds; a launched command keeps running")
      ->check(CLI::PositiveNumber)
      ->type_name("SECS");
  const std::map<std::string, double> seconds_units = {
      {"ms", 0.001}, {"s", 1}, {"m", 60}, {"h", 3600}};
  auto* rotate =
      cmd->add_option("--rotate", options.rotate_s,
                      "Write one profile per interval (as 60s, 5m) into --output-dir, named "
                      "sprof-<UTC start>-<seq>.json.gz; no server")
          ->transform(CLI::AsNumberWithUnit(seconds_units, CLI::AsNumberWithUnit::CASE_SENSITIVE)
                          .description(""))
          ->check(CLI::PositiveNumber)
          ->type_name("INTERVAL");
  auto* flight =
      cmd->add_option("--flight-recorder", options.flight_recorder_s,
                      "Keep only the last WINDOW (as 30s, 2m) of the recording; SIGUSR2 writes "
                      "it and recording goes on, the end of the recording (Ctrl-C, the command's "
                      "exit or crash) writes the last one; no server")
          ->transform(CLI::AsNumberWithUnit(seconds_units, CLI::AsNumberWithUnit::CASE_SENSITIVE)
                          .description(""))
          ->check(CLI::PositiveNumber)
          ->type_name("WINDOW")
          ->excludes(rotate)
          ->excludes(heap);
  auto* output_dir = cmd->add_option("--output-dir", options.output_dir,
                                     "With --rotate or --flight-recorder: the directory of the "
                                     "profiles (made when missing)")
                         ->type_name("DIR");
  rotate->needs(output_dir)->excludes("--output");
  cmd->add_option("--max-files", options.max_files,
                  "With --rotate or --flight-recorder: keep at most N profiles, removing the "
                  "oldest")
      ->check(CLI::Range(1, 1000000))
      ->type_name("N");
  cmd->add_flag("--kill-on-stop", record.kill_on_stop,
                "With -d: terminate the launched command when the recording stops");
  cmd->add_option("--iteration-count", record.iteration_count,
                  "Run the command N times, one after another, into one profile")
      ->check(CLI::Range(1, 1000000))
      ->type_name("N");
  cmd->add_option("--profile-name", record.profile_name,
                  "Name of the profile in the Firefox Profiler (default: the command's name, or "
                  "\"PID n\")")
      ->type_name("NAME");
  cmd->add_flag("--include-args{" + std::to_string(kAllArguments) + "}", record.process_name_args,
                "Show up to N command-line arguments after each process's name (without =N: "
                "all of them)")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast)
      ->option_text(optional_value_text("N"));
  auto* per_cpu =
      cmd->add_flag("--per-cpu-threads", record.per_cpu_threads,
                    "Add a \"CPUs\" process with one track per CPU: which thread ran there when, "
                    "with the samples taken on that CPU");
  // Its tracks are completed only when the recording ends (convert/flight_window.hpp).
  flight->excludes(per_cpu);
  cmd->add_flag("--cswitch-markers", record.cswitch_markers,
                "With --per-cpu-threads: a marker for each stretch a thread ran on a CPU");
  add_serve_options(*cmd, options.serve);
  add_verbosity_options(*cmd, options.verbosity);
  cmd->add_option("command", record.command,
                  "The command to record and its arguments, exactly as typed: everything from "
                  "the first word that is not an option of sprof (or after --). Leading "
                  "NAME=VALUE words set its environment.")
      ->type_name("COMMAND");
  // The command's leading NAME=VALUE words become its environment (as env(1) and samply do).
  cmd->parse_complete_callback([cmd, &options, &record] {
    const bool writes_files = options.rotate_s > 0 || options.flight_recorder_s > 0;
    if (!writes_files && (!options.output_dir.empty() || options.max_files > 0)) {
      throw CLI::ValidationError(options.output_dir.empty() ? "--max-files" : "--output-dir",
                                 "needs --rotate or --flight-recorder");
    }
    // A flight recording names its files after -o when it has no --output-dir: one or the other.
    if (options.flight_recorder_s > 0 && !options.output_dir.empty() &&
        cmd->count("--output") > 0) {
      throw CLI::ValidationError("--output",
                                 "--flight-recorder writes into --output-dir or beside -o, not "
                                 "both");
    }
    const bool had_command = !record.command.empty();
    take_environment_assignments(record.command, record.environment);
    if (had_command && record.command.empty()) {
      throw CLI::ValidationError("command",
                                 "NAME=VALUE sets the environment of a command, but "
                                 "no command follows");
    }
  });
  return cmd;
}

}  // namespace sprof::cli
