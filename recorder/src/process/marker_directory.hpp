// recorder/src/convert/marker_directory.hpp
//
// The directory a launched command writes its user markers to: sprof creates it, passes it in
// the environment variable SPROF_MARKER_DIR (read by include/sprof/markers.h), and removes it
// with the marker files in it when the session ends (the files have been read into the profile
// by then; see marker_files.hpp).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "sprof/core/result.hpp"

namespace sprof::recorder {

inline constexpr const char* kMarkerDirEnv = "SPROF_MARKER_DIR";

class MarkerDirectory {
 public:
  // A fresh private directory under $TMPDIR (else /tmp).
  static Result<MarkerDirectory> create();

  MarkerDirectory(MarkerDirectory&& o) noexcept : path_(std::move(o.path_)) { o.path_.clear(); }
  MarkerDirectory& operator=(MarkerDirectory&&) = delete;
  MarkerDirectory(const MarkerDirectory&) = delete;
  MarkerDirectory& operator=(const MarkerDirectory&) = delete;
  ~MarkerDirectory();  // removes the marker files in it, then the directory if empty

  const std::string& path() const { return path_; }
  // "SPROF_MARKER_DIR=<path>", for the launched command's environment.
  std::string environment_entry() const { return std::string(kMarkerDirEnv) + "=" + path_; }

 private:
  explicit MarkerDirectory(std::string path) : path_(std::move(path)) {}
  std::string path_;
};

// The environment entries that point a launched command at `dir`, creating the directory on
// first use. Without a directory (creation failed, logged) the command runs without markers.
std::vector<std::string> marker_environment(std::optional<MarkerDirectory>& dir);

}  // namespace sprof::recorder
