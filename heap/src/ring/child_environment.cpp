// heap/src/ring/child_environment.cpp
//
// The launched program's environment and where the interposer library lives.
#include <unistd.h>

#include <filesystem>
#include <system_error>

#include "sprof/heap/heap_ring.hpp"
#include "sprof/heap/heap_ring_format.hpp"

namespace sprof::heap {

Result<std::vector<std::string>> heap_child_environment(const std::string& interposer_path,
                                                        const std::string& ring_path,
                                                        const char* existing_ld_preload) {
  // ld.so splits LD_PRELOAD at spaces and colons.
  if (interposer_path.find_first_of(" :") != std::string::npos)
    return fail(Errc::kInvalidArgument, "cannot preload '" + interposer_path +
                                            "': LD_PRELOAD cannot hold a path with a "
                                            "space or colon");
  std::string preload = interposer_path;
  if (existing_ld_preload != nullptr && existing_ld_preload[0] != '\0')
    preload += ":" + std::string(existing_ld_preload);
  return std::vector<std::string>{"LD_PRELOAD=" + preload,
                                  std::string(kRingEnvVar) + "=" + ring_path};
}

std::vector<std::string> interposer_candidates(std::string_view executable_dir) {
  const std::filesystem::path dir(executable_dir);
  return {
      (dir / kInterposerFileName).string(),
      (dir.parent_path() / "lib" / "sprof" / kInterposerFileName).string(),
      (dir.parent_path() / "heap" / kInterposerFileName).string(),
  };
}

Result<std::string> locate_interposer(const std::string& executable_path) {
  std::error_code ec;
  const auto exe = std::filesystem::canonical(executable_path, ec);
  if (ec) return fail(Errc::kNotFound, "cannot resolve '" + executable_path + "': " + ec.message());
  std::string looked;
  for (const auto& candidate : interposer_candidates(exe.parent_path().string())) {
    if (::access(candidate.c_str(), R_OK) == 0) return candidate;
    looked += looked.empty() ? candidate : ", " + candidate;
  }
  return fail(Errc::kNotFound,
              std::string(kInterposerFileName) + " not found (looked in " + looked + ")");
}

}  // namespace sprof::heap
