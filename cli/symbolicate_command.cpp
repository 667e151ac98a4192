#include "symbolicate_command.hpp"

#include <cstdio>
#include <filesystem>

#include "console.hpp"
#include "exit_codes.hpp"
#include "self_contained.hpp"
#include "sprof/profile/profile_file.hpp"
#include "sprof/profile/profile_reader.hpp"

namespace sprof::cli {

int run_symbolicate_command(const SymbolicateCommandOptions& options) {
  const std::string& input = options.input;
  const std::string& output = options.output.empty() ? input : options.output;
  auto bytes = profile::read_profile_json(input);
  if (!bytes) {
    std::fprintf(stderr, "sprof: cannot read %s: %s\n", input.c_str(),
                 bytes.error().message.c_str());
    // A file that is missing or not a profile is the command line's fault; one too large is not.
    return bytes.error().code == Errc::kTooLarge ? kExitFailure : kExitUsage;
  }
  const auto format = profile::identify_profile_format(*bytes);
  if (!format.has_value()) {
    std::fprintf(stderr, "sprof: cannot read %s: %s\n", input.c_str(),
                 format.error().message.c_str());
    return format.error().code == Errc::kMalformed ? kExitUsage : kExitFailure;
  }
  switch (*format) {
    case profile::ProfileFormat::kUnknown:
      std::fprintf(stderr, "sprof: %s is not a profile (no meta.version)\n", input.c_str());
      return kExitUsage;
    case profile::ProfileFormat::kProcessed: {
      if (!quiet()) std::fprintf(stderr, "sprof: %s is self-contained already\n", input.c_str());
      std::error_code ec;
      if (output != input &&
          !std::filesystem::copy_file(input, output,
                                      std::filesystem::copy_options::overwrite_existing, ec)) {
        std::fprintf(stderr, "sprof: cannot copy it to %s: %s\n", output.c_str(),
                     ec.message().c_str());
        return kExitFailure;
      }
      return kExitOk;
    }
    case profile::ProfileFormat::kGecko: break;
  }
  auto profile = profile::read_gecko_json(*bytes);
  if (!profile) {
    std::fprintf(stderr, "sprof: cannot read %s: %s\n", input.c_str(),
                 profile.error().message.c_str());
    return kExitFailure;
  }
  std::error_code ec;
  const uint64_t previous_bytes = std::filesystem::file_size(input, ec);
  bytes->clear();
  bytes->shrink_to_fit();
  const auto symbolicator = symbolicator_for(*profile, options.symbols);
  return embed_symbols(*profile, *symbolicator, output, ec ? 0 : previous_bytes, options.symbols)
             ? kExitOk
             : kExitFailure;
}

}  // namespace sprof::cli
