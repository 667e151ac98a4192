#include "sprof/core/log.hpp"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace sprof::log {

namespace {

Level level_from_env() {
  const char* env = std::getenv("SPROF_LOG");
  if (!env) return Level::kWarn;
  const std::string_view v(env);
  if (v == "debug") return Level::kDebug;
  if (v == "info") return Level::kInfo;
  if (v == "error") return Level::kError;
  if (v == "off") return Level::kOff;
  return Level::kWarn;
}

std::atomic<Level>& current() {
  static std::atomic<Level> level{level_from_env()};
  return level;
}

const char* prefix(Level l) {
  switch (l) {
    case Level::kDebug: return "debug";
    case Level::kInfo: return "info";
    case Level::kWarn: return "warning";
    case Level::kError: return "error";
    case Level::kOff: break;
  }
  return "";
}

}  // namespace

void set_level(Level level) { current().store(level); }
Level level() { return current().load(); }
bool enabled(Level l) { return l >= current().load(std::memory_order_relaxed); }

void write(Level l, std::string_view message) {
  // One fprintf per line keeps lines from different threads whole.
  std::fprintf(stderr, "sprof: %s: %.*s\n", prefix(l), static_cast<int>(message.size()),
               message.data());
}

}  // namespace sprof::log
