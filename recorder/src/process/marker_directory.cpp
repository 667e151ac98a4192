#include "process/marker_directory.hpp"

#include <dirent.h>
#include <unistd.h>

#include <cstdlib>
#include <vector>

#include "sprof/convert/marker_files.hpp"
#include "sprof/core/log.hpp"

namespace sprof::recorder {

Result<MarkerDirectory> MarkerDirectory::create() {
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern =
      std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/sprof-markers-XXXXXX";
  std::vector<char> buf(pattern.begin(), pattern.end());
  buf.push_back('\0');
  if (::mkdtemp(buf.data()) == nullptr) {
    return unexpected(Error::from_errno("mkdtemp(" + pattern + ")"));
  }
  return MarkerDirectory(std::string(buf.data()));
}

MarkerDirectory::~MarkerDirectory() {
  if (path_.empty()) return;
  // Only what sprof's protocol puts there: anything else keeps the directory (rmdir fails).
  if (DIR* d = ::opendir(path_.c_str())) {
    std::vector<std::string> names;
    while (const dirent* ent = ::readdir(d)) {
      if (convert::parse_marker_file_name(ent->d_name)) names.emplace_back(ent->d_name);
    }
    ::closedir(d);
    for (const auto& name : names) ::unlink((path_ + "/" + name).c_str());
  }
  ::rmdir(path_.c_str());
}

std::vector<std::string> marker_environment(std::optional<MarkerDirectory>& dir) {
  if (!dir) {
    auto created = MarkerDirectory::create();
    if (!created) {
      log::info("user markers disabled: " + created.error().message);
      return {};
    }
    dir.emplace(std::move(*created));
  }
  return {dir->environment_entry()};
}

}  // namespace sprof::recorder
