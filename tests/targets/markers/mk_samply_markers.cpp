// Writes user markers the way samply documents them, without sprof's header:
// <dir>/marker-<pid>.txt, mmapped once so perf reports it, lines "<start_ns> <end_ns> <name>"
// in CLOCK_MONOTONIC ns. Usage: mk_samply_markers <dir>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <string>

#include "spin.hpp"

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  const std::string path = std::string(argv[1]) + "/marker-" + std::to_string(getpid()) + ".txt";
  const int fd = open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC, 0600);
  if (fd < 0) return 1;
  if (mmap(nullptr, 4096, PROT_READ, MAP_SHARED, fd, 0) == MAP_FAILED) return 1;

  const uint64_t start = monotonic_ns();
  spin_for_ms(150);
  const uint64_t end = monotonic_ns();
  const std::string lines = std::to_string(start) + " " + std::to_string(end) +
                            " samply-interval\n" + std::to_string(end) + " " + std::to_string(end) +
                            " samply-instant\n";
  if (write(fd, lines.data(), lines.size()) != static_cast<ssize_t>(lines.size())) return 1;
  spin_for_ms(50);
  return 0;
}
