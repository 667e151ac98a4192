// sprof: command-line entry point. Parses arguments and dispatches; nothing else.
#include <CLI/CLI.hpp>

#include <cstdio>

#include "exit_codes.hpp"
#include "load_command.hpp"
#include "options.hpp"
#include "record_command.hpp"
#include "symbolicate_command.hpp"

namespace {

void add_symbol_options(CLI::App& cmd, sprof::cli::SymbolSources& symbols) {
  cmd.add_option("--symbol-dir", symbols.symbol_dirs,
                 "Extra directory with debug files (by name or .build-id tree); repeatable");
  auto* urls = cmd.add_option("--debuginfod", symbols.debuginfod_urls,
                              "Fetch missing debug info and binaries by build-id from this "
                              "debuginfod server; repeatable (default: $DEBUGINFOD_URLS)");
  cmd.add_flag("--no-debuginfod", symbols.no_debuginfod,
               "Never contact a debuginfod server, even with DEBUGINFOD_URLS set")
      ->excludes(urls);
  cmd.add_option("--debuginfod-timeout", symbols.debuginfod_timeout_s,
                 "Longest time one debuginfod download may take, in seconds (default 90)")
      ->check(CLI::Range(1, 3600));
}

void add_serve_options(CLI::App& cmd, sprof::cli::ServeOptions& serve) {
  cmd.add_option("-P,--port", serve.port,
                 "Port for the local server; 'N+' tries N..N+99 (default 3000)");
  cmd.add_option("--address", serve.address, "Address to bind (default 127.0.0.1)");
  cmd.add_flag("-n,--no-open", serve.no_open, "Print the URL instead of opening a browser");
  add_symbol_options(cmd, serve.symbols);
  cmd.add_option("--profiler-url", serve.profiler_url,
                 "Firefox Profiler to open (default $SPROF_PROFILER_URL or "
                 "https://profiler.firefox.com)");
}

}  // namespace

int main(int argc, char** argv) {
  using namespace sprof::cli;
  CLI::App app{"sprof: a sampling profiler for Linux that opens its profiles in the Firefox "
               "Profiler"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "sprof 0.1.0");

  RecordCommandOptions record;
  auto* rec = app.add_subcommand("record", "Record a command and open its profile");
  rec->add_option("-o,--output", record.output,
                  "Profile file to write (gzip when it ends in .gz; default profile.json.gz)");
  rec->add_option("-r,--rate", record.record.frequency_hz, "Sampling rate in Hz (default 1000)")
      ->check(CLI::Range(1, 100000));
  rec->add_flag("-s,--save-only", record.save_only, "Save the profile and exit, no server");
  rec->add_flag_callback(
      "--no-presymbolicate", [&record] { record.presymbolicate = false; },
      "Save without embedded symbols (faster; names then need sprof's server and the binaries)");
  rec->add_option("--unwind", record.record.unwind, "User stack unwinding: dwarf (default) or fp")
      ->transform(CLI::CheckedTransformer(
          std::map<std::string, sprof::recorder::UnwindMode>{
              {"dwarf", sprof::recorder::UnwindMode::kDwarf},
              {"fp", sprof::recorder::UnwindMode::kFramePointer}},
          CLI::ignore_case));
  rec->add_option("--stack-size", record.record.stack_size,
                  "Bytes of user stack copied per sample for dwarf unwinding (default 16384)")
      ->check(CLI::Range(512, 65528));
  rec->add_flag_callback(
      "--no-off-cpu", [&record] { record.record.off_cpu = false; },
      "Do not record where threads block (off-CPU stacks as Idle samples)");
  auto* pids = rec->add_option("-p,--pid", record.record.attach_pids,
                                "Record this running process instead of a command; repeatable")
                    ->allow_extra_args(false);
  auto* all = rec->add_flag("-a,--all", record.record.system_wide,
                            "Record every process on the system (root or "
                            "perf_event_paranoid <= 0)");
  all->excludes(pids);
  rec->add_option("-d,--duration", record.record.duration_s,
                  "Stop recording after SECS seconds; a launched command keeps running")
      ->check(CLI::PositiveNumber);
  rec->add_flag("--kill-on-stop", record.record.kill_on_stop,
                "With -d: terminate the launched command when the recording stops");
  rec->add_option("--iteration-count", record.record.iteration_count,
                  "Run the command N times, one after another, into one profile")
      ->check(CLI::Range(1, 1000000));
  add_serve_options(*rec, record.serve);
  rec->add_option("command", record.record.command,
                  "The command to record, after -- (unless -p or -a)");

  LoadCommandOptions load;
  auto* ld = app.add_subcommand("load", "Serve a saved profile and open it");
  ld->add_option("profile", load.profile_path, "Profile file (.json or .json.gz)")->required();
  add_serve_options(*ld, load.serve);

  SymbolicateCommandOptions symbolicate;
  auto* sym = app.add_subcommand(
      "symbolicate", "Embed symbols in a saved profile so it opens anywhere without sprof");
  sym->add_option("profile", symbolicate.input, "Profile file (.json or .json.gz)")->required();
  sym->add_option("-o,--output", symbolicate.output,
                  "File to write (gzip when it ends in .gz; default: replace the input)");
  add_symbol_options(*sym, symbolicate.symbols);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? kExitOk : kExitUsage;
  }

  if (rec->parsed()) return run_record_command(record);
  if (sym->parsed()) return run_symbolicate_command(symbolicate);
  return run_load_command(load);
}
