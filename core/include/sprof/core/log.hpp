// sprof/core/log.hpp
//
// Minimal leveled logging to stderr for libraries. Libraries log diagnostics here and return
// errors upward; only cli/ prints for humans. The level comes from SPROF_LOG (debug, info, warn,
// error; default warn) or `set_log_level`.
#pragma once

#include <string_view>

namespace sprof::log {

enum class Level { kDebug = 0, kInfo = 1, kWarn = 2, kError = 3, kOff = 4 };

void set_level(Level level);
Level level();
bool enabled(Level level);
void write(Level level, std::string_view message);

inline void debug(std::string_view m) {
  if (enabled(Level::kDebug)) write(Level::kDebug, m);
}
inline void info(std::string_view m) {
  if (enabled(Level::kInfo)) write(Level::kInfo, m);
}
inline void warn(std::string_view m) {
  if (enabled(Level::kWarn)) write(Level::kWarn, m);
}
inline void error(std::string_view m) {
  if (enabled(Level::kError)) write(Level::kError, m);
}

}  // namespace sprof::log
