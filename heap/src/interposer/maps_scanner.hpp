// heap/src/interposer/maps_scanner.hpp
//
// Finds the mapping that contains an address by streaming /proc/self/maps through a small
// buffer: the interposer needs the end of the stack it copies from (a copy must never run off
// the mapping), and it may run on a tiny signal stack, before libc is initialised, or in a fork
// child, so it cannot use stdio or allocate.
//
// `MapsScanner` is the pure part: feed it the text in chunks of any size; it parses only the
// "start-end" field of each line and stops caring once it has passed the address (the kernel
// lists mappings in address order). `find_mapping` does the reading with raw syscalls.
#pragma once

#include <cstddef>
#include <cstdint>

namespace sprof::heap::interposer {

class MapsScanner {
 public:
  explicit MapsScanner(uint64_t address) : address_(address) {}

  void feed(const char* text, size_t n);
  // True once the answer is known (found, or a mapping starting above the address was seen).
  bool done() const { return done_; }
  bool found() const { return found_; }
  uint64_t start() const { return start_; }
  uint64_t end() const { return end_; }

 private:
  enum class Field : uint8_t { kStart, kEnd, kRest, kBad };
  void end_line();

  uint64_t address_;
  uint64_t start_ = 0;
  uint64_t end_ = 0;
  uint64_t value_ = 0;
  Field field_ = Field::kStart;
  int digits_ = 0;
  bool done_ = false;
  bool found_ = false;
};

// Reads /proc/self/maps; false when it cannot be read or no mapping contains `address`.
bool find_mapping(uint64_t address, uint64_t& start, uint64_t& end);

}  // namespace sprof::heap::interposer
