// cli/definitions/command_tail.hpp
//
// Command lines as people type them: `sprof record ./app -o x -p 3` records `./app -o x -p 3`.
// Everything from the first argument that is not one of sprof's options (or after `--`) is the
// command, untouched, even where its flags look like sprof's. CLI11 would read such flags as
// sprof's own, so the arguments of a subcommand that runs a command are split here first, using
// that subcommand's own option definitions to know which options take a value.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace sprof::cli {

struct SplitArguments {
  std::vector<std::string> options;  // sprof's options, in order
  std::vector<std::string> command;  // the command and its arguments, untouched
};

// Splits `args` (what follows the subcommand's name) at the command: the first argument that
// neither is an option of `subcommand` nor the value of one, or whatever follows `--`. Unknown
// options stay with the options, for CLI11 to refuse.
SplitArguments split_at_command(const std::vector<std::string>& args, const CLI::App& subcommand);

// The arguments CLI11 should parse for `argv`: unchanged, except that when the subcommand is one
// of `command_runners`, its command is moved behind a `--` so CLI11 treats it as positional.
std::vector<std::string> arguments_for_parser(const std::vector<std::string>& argv,
                                              const CLI::App& app,
                                              const std::vector<const CLI::App*>& command_runners);

// Moves the command's leading NAME=VALUE words into `environment` (as env(1) reads them).
void take_environment_assignments(std::vector<std::string>& command,
                                  std::vector<std::string>& environment);

}  // namespace sprof::cli
