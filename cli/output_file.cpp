#include "output_file.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace sprof::cli {

bool is_standard_output(const std::string& path) { return path.empty() || path == "-"; }

bool write_output(const std::string& path, const std::string& bytes) {
  const bool to_stdout = is_standard_output(path);
  std::FILE* out = to_stdout ? stdout : std::fopen(path.c_str(), "wb");
  if (out == nullptr) {
    std::fprintf(stderr, "sprof: cannot write %s: %s\n", path.c_str(), std::strerror(errno));
    return false;
  }
  const bool written = std::fwrite(bytes.data(), 1, bytes.size(), out) == bytes.size();
  const bool closed = to_stdout ? std::fflush(out) == 0 : std::fclose(out) == 0;
  if (!written || !closed) {
    std::fprintf(stderr, "sprof: cannot write %s: %s\n",
                 to_stdout ? "standard output" : path.c_str(), std::strerror(errno));
    return false;
  }
  return true;
}

}  // namespace sprof::cli
