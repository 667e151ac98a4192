#include "cli_model.hpp"

#include <sstream>

#include "definitions/definitions.hpp"
#include "definitions/help_formatter.hpp"

namespace sprof::cli::docgen {

namespace {

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::istringstream in(text);
  for (std::string part; std::getline(in, part, separator);) {
    if (!part.empty()) parts.push_back(part);
  }
  return parts;
}

std::string trimmed(std::string s) {
  while (!s.empty() && s.front() == ' ') s.erase(s.begin());
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

OptionDoc describe_option(CLI::Option* opt, const HelpFormatter& formatter, bool positional) {
  OptionDoc doc;
  doc.description = opt->get_description();
  doc.repeatable = opt->get_expected_max() > 1;
  if (positional) {
    doc.names = {opt->get_name(true, false)};
    doc.value = opt->get_type_name();
  } else {
    doc.names = split(option_names(opt), ',');
    doc.value = trimmed(formatter.make_option_opts(opt));
    doc.optional_value = opt->get_option_text().starts_with("[=");
  }
  // The type name says what the value is (cli/definitions set them for this purpose).
  std::string type = opt->get_type_name();
  type = type.substr(0, type.find(':'));
  doc.value_name = type;
  if (opt->get_items_expected_max() == 0 && !doc.optional_value) {
    doc.kind = ValueKind::kNone;
  } else if (type == "FILE") {
    doc.kind = ValueKind::kFile;
  } else if (type == "DIR") {
    doc.kind = ValueKind::kDirectory;
  } else if (type == "PID") {
    doc.kind = ValueKind::kPid;
  } else if (type == "COMMAND") {
    doc.kind = ValueKind::kCommand;
  } else if (auto choices = choices_of(opt); !choices.empty()) {
    doc.kind = ValueKind::kChoice;
    doc.choices = std::move(choices);
  } else {
    doc.kind = ValueKind::kOther;
  }
  return doc;
}

}  // namespace

CliDoc describe_cli() {
  Commands commands;
  const SprofApp sprof = make_sprof_app(commands);
  const HelpFormatter formatter;
  CliDoc doc;
  doc.version = version_text();
  doc.description = sprof.app->get_description();
  for (CLI::Option* opt : sprof.app->get_options([](CLI::Option*) { return true; })) {
    doc.options.push_back(describe_option(opt, formatter, false));
  }
  for (CLI::App* sub : sprof.app->get_subcommands([](CLI::App*) { return true; })) {
    CommandDoc command;
    command.name = sub->get_name();
    command.description = sub->get_description();
    command.usage = "sprof " + command.name + " [OPTIONS]";
    for (CLI::Option* opt : sub->get_options([](CLI::Option*) { return true; })) {
      if (opt->get_positional()) {
        command.positionals.push_back(describe_option(opt, formatter, true));
        const OptionDoc& p = command.positionals.back();
        command.usage += " " + std::string(opt->get_required() ? "" : "[") + p.value +
                         (p.repeatable ? "..." : "") + (opt->get_required() ? "" : "]");
      } else {
        command.options.push_back(describe_option(opt, formatter, false));
      }
    }
    doc.commands.push_back(std::move(command));
  }
  return doc;
}

}  // namespace sprof::cli::docgen
