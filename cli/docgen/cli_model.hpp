// cli/docgen/cli_model.hpp
//
// sprof's command line as data, read from the same CLI11 definitions `--help` prints
// (cli/definitions), for the man page and the shell completions.
#pragma once

#include <string>
#include <vector>

namespace sprof::cli::docgen {

// What a value is, for completion: guessed from the option's type name in the definitions.
enum class ValueKind { kNone, kFile, kDirectory, kPid, kChoice, kCommand, kOther };

struct OptionDoc {
  std::vector<std::string> names;  // "-o", "--output"
  std::string value;               // as --help shows it after the names ("FILE", "[=N]"), or ""
  std::string value_name;          // the value's name alone ("SECS", not "SECS:INT in [1 - 3600]")
  std::string description;
  ValueKind kind = ValueKind::kNone;
  std::vector<std::string> choices;  // kChoice
  bool optional_value = false;       // "--include-args[=N]": a value only after '='
  bool repeatable = false;
};

struct CommandDoc {
  std::string name;
  std::string description;
  std::string usage;               // "sprof record [OPTIONS] [COMMAND...]"
  std::vector<OptionDoc> options;  // in --help's order
  std::vector<OptionDoc> positionals;
};

struct CliDoc {
  std::string version;             // "sprof 0.1.0"
  std::string description;         // the program's one-line description
  std::vector<OptionDoc> options;  // the program's own (--help, --version)
  std::vector<CommandDoc> commands;
};

CliDoc describe_cli();

}  // namespace sprof::cli::docgen
