#include "load_command.hpp"

#include <sys/stat.h>

#include <cstdio>

#include "exit_codes.hpp"
#include "serve.hpp"

namespace sprof::cli {

int run_load_command(const LoadCommandOptions& options) {
  struct stat st {};
  if (stat(options.profile_path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) {
    std::fprintf(stderr, "sprof: %s: no such profile file\n", options.profile_path.c_str());
    return kExitUsage;
  }
  RecordingFacts facts;
  facts.command = "sprof load " + options.profile_path;
  facts.output_path = options.profile_path;
  facts.output_bytes = static_cast<uint64_t>(st.st_size);
  return serve_profile(options.profile_path, options.serve, facts);
}

}  // namespace sprof::cli
