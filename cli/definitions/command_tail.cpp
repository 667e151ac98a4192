#include "command_tail.hpp"

#include <algorithm>
#include <cctype>

namespace sprof::cli {

namespace {

// Whether the option `name` ("-o", "--output") of `cmd` reads a value from the next argument
// (flags never do; an unknown option is CLI11's to refuse, and takes nothing).
bool takes_value(const CLI::App& cmd, const std::string& name) {
  const CLI::Option* opt = cmd.get_option_no_throw(name);
  return opt != nullptr && opt->get_items_expected_min() > 0;
}

// How many arguments, starting at `arg` (an option), belong to sprof: 1, or 2 when the option's
// value is the next argument.
size_t option_width(const CLI::App& cmd, const std::string& arg) {
  if (arg.starts_with("--")) {
    // "--name=value" carries its value.
    if (arg.find('=') != std::string::npos) return 1;
    return takes_value(cmd, arg) ? 2 : 1;
  }
  // A cluster of short options ("-sv", "-o" "x", "-ox"): the first one that takes a value takes
  // the rest of the cluster, or the next argument when the cluster ends with it.
  for (size_t i = 1; i < arg.size(); ++i) {
    if (takes_value(cmd, std::string{'-', arg[i]})) return i + 1 == arg.size() ? 2 : 1;
  }
  return 1;
}

bool is_option(const std::string& arg) { return arg.size() > 1 && arg[0] == '-'; }

bool is_assignment(const std::string& word) {
  const auto eq = word.find('=');
  if (eq == std::string::npos || eq == 0) return false;
  if (std::isdigit(static_cast<unsigned char>(word[0]))) return false;
  return std::all_of(word.begin(), word.begin() + static_cast<std::ptrdiff_t>(eq), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

}  // namespace

SplitArguments split_at_command(const std::vector<std::string>& args, const CLI::App& subcommand) {
  SplitArguments split;
  size_t i = 0;
  while (i < args.size()) {
    const std::string& arg = args[i];
    if (arg == "--") {
      ++i;
      break;
    }
    if (!is_option(arg)) break;
    const size_t width = std::min(option_width(subcommand, arg), args.size() - i);
    split.options.insert(split.options.end(), args.begin() + static_cast<std::ptrdiff_t>(i),
                         args.begin() + static_cast<std::ptrdiff_t>(i + width));
    i += width;
  }
  split.command.assign(args.begin() + static_cast<std::ptrdiff_t>(i), args.end());
  return split;
}

std::vector<std::string> arguments_for_parser(const std::vector<std::string>& argv,
                                              const CLI::App& app,
                                              const std::vector<const CLI::App*>& command_runners) {
  // The subcommand is the first word after the program's own flags (--help, --version).
  size_t at = 1;
  while (at < argv.size() && is_option(argv[at])) ++at;
  if (at >= argv.size()) return argv;
  const auto named =
      app.get_subcommands([&](const CLI::App* sub) { return sub->check_name(argv[at]); });
  if (named.empty() || std::find(command_runners.begin(), command_runners.end(), named.front()) ==
                           command_runners.end()) {
    return argv;
  }
  const CLI::App* sub = named.front();
  const std::vector<std::string> rest(argv.begin() + static_cast<std::ptrdiff_t>(at + 1),
                                      argv.end());
  SplitArguments split = split_at_command(rest, *sub);
  std::vector<std::string> out(argv.begin(), argv.begin() + static_cast<std::ptrdiff_t>(at + 1));
  out.insert(out.end(), split.options.begin(), split.options.end());
  if (!split.command.empty()) {
    out.emplace_back("--");
    out.insert(out.end(), split.command.begin(), split.command.end());
  }
  return out;
}

void take_environment_assignments(std::vector<std::string>& command,
                                  std::vector<std::string>& environment) {
  const auto first_word = std::find_if_not(command.begin(), command.end(), is_assignment);
  environment.insert(environment.end(), command.begin(), first_word);
  command.erase(command.begin(), first_word);
}

}  // namespace sprof::cli
