// cli/definitions/help_formatter.hpp
//
// CLI11's help layout with two changes: a flag that takes an optional value
// (`--include-args{1000}` in CLI11's definition syntax) is shown as `--include-args[=N]`, and a
// choice among names shows the names (`--unwind dwarf|fp`) instead of CLI11's mapping table. The
// man page and completions read the same definitions through it.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sprof::cli {

class HelpFormatter : public CLI::Formatter {
 public:
  std::string make_option_name(const CLI::Option* opt, bool is_positional) const override;
  std::string make_option_opts(const CLI::Option* opt) const override;
};

// The option text of a flag with an optional value, e.g. "[=N]".
std::string optional_value_text(const std::string& value_name);

// An option's names as its help shows them ("-o,--output"), without CLI11's "{default}".
std::string option_names(const CLI::Option* opt);

// The name of the validator `one_of` makes starts with this, followed by the choices separated by
// '|': how the man page and the completions learn them.
inline constexpr std::string_view kChoicesValidator = "choices:";

// One of `names` (in the order given), turned into the value CLI11 stores for it; anything else
// is refused with the list of names.
template <typename T>
CLI::Validator one_of(const std::vector<std::pair<std::string, T>>& names) {
  std::string listed, tagged(kChoicesValidator);
  for (const auto& [name, value] : names) {
    listed += (listed.empty() ? "" : ", ") + name;
    tagged += (tagged.size() == kChoicesValidator.size() ? "" : "|") + name;
  }
  return CLI::Validator(
      [names, listed](std::string& input) -> std::string {
        for (const auto& [name, value] : names) {
          if (input == name) {
            input = std::to_string(static_cast<long long>(value));
            return {};
          }
        }
        return "'" + input + "' is not one of: " + listed;
      },
      "", tagged);
}

// The choices of an option whose values `one_of` checks; empty for any other option.
std::vector<std::string> choices_of(CLI::Option* opt);

}  // namespace sprof::cli
