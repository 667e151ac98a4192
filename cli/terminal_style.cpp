#include "terminal_style.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <cstdlib>

namespace sprof::cli {

namespace {

size_t terminal_width(size_t asked) {
  if (asked != 0) return asked;
  winsize size{};
  if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col >= 40) {
    return size.ws_col;
  }
  if (const char* columns = std::getenv("COLUMNS")) {
    const long n = std::strtol(columns, nullptr, 10);
    if (n >= 40 && n <= 1000) return static_cast<size_t>(n);
  }
  return 80;
}

bool use_colour(ColourChoice choice) {
  if (choice != ColourChoice::kAuto) return choice == ColourChoice::kAlways;
  const char* no_colour = std::getenv("NO_COLOR");
  return isatty(STDOUT_FILENO) && (no_colour == nullptr || *no_colour == '\0');
}

}  // namespace

report::TextStyle terminal_style(size_t width, ColourChoice colour) {
  return {terminal_width(width), use_colour(colour)};
}

}  // namespace sprof::cli
