#include "console.hpp"

#include <atomic>

#include "sprof/core/log.hpp"

namespace sprof::cli {

namespace {
std::atomic<Verbosity> g_verbosity{Verbosity::kNormal};
}  // namespace

void set_verbosity(Verbosity v) {
  g_verbosity.store(v);
  // The libraries' own notes follow the same choice: with -v what they skipped and why (their
  // debug messages), with -q errors only. SPROF_LOG still decides when neither is given.
  if (v == Verbosity::kVerbose) log::set_level(log::Level::kDebug);
  if (v == Verbosity::kQuiet) log::set_level(log::Level::kError);
}
Verbosity verbosity() { return g_verbosity.load(); }

}  // namespace sprof::cli
