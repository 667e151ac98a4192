// heap/src/interposer/maps_scanner.cpp
#include "interposer/maps_scanner.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

namespace sprof::heap::interposer {
namespace {

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

void MapsScanner::end_line() {
  if (field_ == Field::kRest) {
    if (start_ <= address_ && address_ < end_) {
      found_ = true;
      done_ = true;
    } else if (start_ > address_) {
      done_ = true;
    }
  }
  field_ = Field::kStart;
  value_ = 0;
  digits_ = 0;
}

void MapsScanner::feed(const char* text, size_t n) {
  for (size_t i = 0; i < n && !done_; ++i) {
    const char c = text[i];
    if (c == '\n') {
      end_line();
      continue;
    }
    if (field_ == Field::kRest || field_ == Field::kBad) continue;
    const int d = hex_digit(c);
    if (d >= 0 && digits_ < 16) {
      value_ = (value_ << 4) | static_cast<uint64_t>(d);
      ++digits_;
    } else if (field_ == Field::kStart && c == '-' && digits_ > 0) {
      start_ = value_;
      field_ = Field::kEnd;
      value_ = 0;
      digits_ = 0;
    } else if (field_ == Field::kEnd && c == ' ' && digits_ > 0) {
      end_ = value_;
      field_ = Field::kRest;
    } else {
      field_ = Field::kBad;  // not "hex-hex ": ignore the line
    }
  }
}

bool find_mapping(uint64_t address, uint64_t& start, uint64_t& end) {
  const int fd = ::open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  MapsScanner scanner(address);
  // Small: this may run on a signal handler's alternate stack.
  char buffer[1024];
  while (!scanner.done()) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    scanner.feed(buffer, static_cast<size_t>(n));
  }
  ::close(fd);
  if (!scanner.found()) return false;
  start = scanner.start();
  end = scanner.end();
  return true;
}

}  // namespace sprof::heap::interposer
