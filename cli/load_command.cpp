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
  return serve_profile(options.profile_path, options.serve, std::nullopt);
}

}  // namespace sprof::cli
