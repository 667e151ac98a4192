#include "help_formatter.hpp"

namespace sprof::cli {

std::string optional_value_text(const std::string& value_name) { return "[=" + value_name + "]"; }

std::string option_names(const CLI::Option* opt) {
  std::string names = opt->get_name(false, true);
  // Drop CLI11's "{value}" suffixes of flags with a default value.
  for (size_t open = names.find('{'); open != std::string::npos; open = names.find('{', open)) {
    const size_t close = names.find('}', open);
    if (close == std::string::npos) break;
    names.erase(open, close - open + 1);
  }
  return names;
}

std::vector<std::string> choices_of(CLI::Option* opt) {
  std::vector<std::string> choices;
  // CLI11 lists an option's validators only by index, and says "no more" by throwing.
  for (int i = 0;; ++i) {
    const CLI::Validator* v = nullptr;
    try {
      v = opt->get_validator(i);
    } catch (const CLI::OptionNotFound&) {
      break;
    }
    const std::string& name = v->get_name();
    if (!name.starts_with(kChoicesValidator)) continue;
    std::string_view rest = std::string_view(name).substr(kChoicesValidator.size());
    while (!rest.empty()) {
      const size_t bar = rest.find('|');
      choices.emplace_back(rest.substr(0, bar));
      rest = bar == std::string_view::npos ? std::string_view() : rest.substr(bar + 1);
    }
  }
  return choices;
}

std::string HelpFormatter::make_option_name(const CLI::Option* opt, bool is_positional) const {
  if (is_positional) return CLI::Formatter::make_option_name(opt, is_positional);
  return option_names(opt);
}

std::string HelpFormatter::make_option_opts(const CLI::Option* opt) const {
  const std::string& text = opt->get_option_text();
  // "[=N]" belongs to the name it follows.
  if (text.starts_with("[=")) return text;
  return CLI::Formatter::make_option_opts(opt);
}

}  // namespace sprof::cli
