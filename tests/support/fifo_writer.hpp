// A writer for a FIFO under test, so that code which wrongly blocks opening the FIFO for reading
// gets unblocked (and then reads EOF) instead of hanging the test: the writer thread opens the
// FIFO as soon as a reader does and closes it at once. When the code under test refused the FIFO
// without opening it, the destructor lets the writer's open complete with a reader of its own.
// Both reach the FIFO through an O_PATH descriptor taken first, so they still meet when the code
// under test renamed something else over the FIFO's name meanwhile.
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <string>
#include <thread>

namespace sprof::test {

class FifoWriter {
 public:
  explicit FifoWriter(const std::string& fifo)
      : fifo_fd_(::open(fifo.c_str(), O_PATH | O_CLOEXEC)),
        via_fd_("/proc/self/fd/" + std::to_string(fifo_fd_)),
        thread_([this] {
          const int fd = ::open(via_fd_.c_str(), O_WRONLY | O_CLOEXEC);  // blocks for a reader
          if (fd >= 0) ::close(fd);
        }) {}
  ~FifoWriter() {
    const int fd = ::open(via_fd_.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    thread_.join();
    if (fd >= 0) ::close(fd);
    if (fifo_fd_ >= 0) ::close(fifo_fd_);
  }
  FifoWriter(const FifoWriter&) = delete;
  FifoWriter& operator=(const FifoWriter&) = delete;

 private:
  int fifo_fd_;
  std::string via_fd_;
  std::thread thread_;
};

}  // namespace sprof::test
