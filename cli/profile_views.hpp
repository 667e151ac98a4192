// cli/profile_views.hpp
//
// The served profile shown without the Firefox Profiler, for a browser that cannot reach
// profiler.firefox.com (an air-gapped machine, a blocked network): sprof's server answers
// `GET /TOKEN/view/NAME` with what `sprof report` and `sprof flamegraph` print for the same file,
// and its page links to them.
//   report.txt      the hottest functions and the top-down call tree, as text
//   flamegraph.svg  the interactive flame graph (script embedded, nothing fetched)
// The profile is read when a view is first asked for, once, on the server's worker pool; each view
// is made once and kept. During `record`, a file still being made self-contained is read as it is
// then (a Gecko file is named from the local binaries, as `sprof report` names it).
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "options.hpp"
#include "sprof/core/http_reply.hpp"

namespace sprof::cli {

struct OpenedProfile;

class ProfileViews {
 public:
  ProfileViews(std::string profile_path, SymbolSources symbols);
  ~ProfileViews();
  ProfileViews(const ProfileViews&) = delete;
  ProfileViews& operator=(const ProfileViews&) = delete;

  // The view called `name`; nullopt for a name it does not make. A profile that cannot be read
  // gives a 500 reply that says why. Thread-safe.
  std::optional<HttpReply> view(std::string_view name);

 private:
  std::string profile_path_;
  SymbolSources symbols_;
  std::mutex mutex_;
  bool read_ = false;
  std::unique_ptr<OpenedProfile> opened_;
  std::string read_error_;
  std::map<std::string, std::string, std::less<>> made_;  // name -> bytes
};

}  // namespace sprof::cli
