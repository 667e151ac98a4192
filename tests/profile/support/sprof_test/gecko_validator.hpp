// sprof_test/gecko_validator.hpp
//
// The static checks of docs/firefox-profiler-format.md, "what the UI requires", over any Gecko
// profile JSON that sprof writes: version and top-level keys, meta, categories, libs, per-thread
// schemas, table indexes, sample and marker values, and the flat process layout. Test code,
// reusable by every test that produces a profile (link `sprof_gecko_validator`).
//
// It returns every problem found, each naming its JSON location, rather than stopping at the
// first, so a failing test shows the whole picture: `CHECK(problems.empty())` plus printing them.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "sprof/core/result.hpp"

namespace sprof::test {

struct GeckoCheckOptions {
  // Require `meta.sampleUnits` with threadCPUDelta in ns (sprof always records CPU deltas).
  bool expect_cpu_deltas = true;
  // Require exactly one category named "Idle" (needed when off-CPU samples are emitted). At most
  // one is always required.
  bool expect_idle_category = false;
};

// Checks a whole profile document. Returns the problems found; empty means it conforms.
std::vector<std::string> check_gecko_profile(std::string_view json,
                                             const GeckoCheckOptions& options = {});

// Reads `path` (gunzipping it when it starts with the gzip magic 1f 8b) and checks it. A file
// that cannot be read is reported as a problem.
std::vector<std::string> check_gecko_profile_file(const std::string& path,
                                                  const GeckoCheckOptions& options = {});

// The JSON text of a profile file, gunzipped when it starts with the gzip magic.
Result<std::string> read_profile_text(const std::string& path);

// One line per problem, for test failure messages.
std::string join_problems(const std::vector<std::string>& problems);

}  // namespace sprof::test
