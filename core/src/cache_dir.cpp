#include "sprof/core/cache_dir.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>

namespace sprof {
namespace {

std::string parent_of(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos || slash == 0 ? std::string() : path.substr(0, slash);
}

bool owned_directory(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == ::geteuid();
}

// mkdir -m 0700 `dir`, but only inside a directory of this user's.
bool make_own_directory(const std::string& dir) {
  const std::string parent = parent_of(dir);
  if (parent.empty() || !owned_directory(parent)) return false;
  return ::mkdir(dir.c_str(), 0700) == 0 || errno == EEXIST;
}

}  // namespace

std::string user_cache_dir() {
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg != nullptr && xdg[0] == '/') {
    return std::string(xdg) + "/sprof";
  }
  if (const char* home = std::getenv("HOME"); home != nullptr && home[0] == '/') {
    return std::string(home) + "/.cache/sprof";
  }
  return "";
}

bool make_own_cache_dir(const std::string& dir) {
  struct stat st {};
  if (::stat(dir.c_str(), &st) == 0) return S_ISDIR(st.st_mode) && st.st_uid == ::geteuid();
  const std::string cache_root = parent_of(dir);
  if (!cache_root.empty() && ::stat(cache_root.c_str(), &st) != 0) make_own_directory(cache_root);
  return make_own_directory(dir);
}

}  // namespace sprof
