// A writer for a FIFO under test, so that code which wrongly blocks opening the FIFO for reading
// gets unblocked (and then reads EOF) instead of hanging the test: the writer thread opens `fifo`
// as soon as a reader does and closes it at once. When the code under test refused the FIFO
// without opening it, the destructor lets the writer's open complete with a reader of its own.
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <string>
#include <thread>
#include <utility>

namespace sprof::test {

class FifoWriter {
 public:
  explicit FifoWriter(std::string fifo)
      : fifo_(std::move(fifo)), thread_([this] {
          const int fd = ::open(fifo_.c_str(), O_WRONLY | O_CLOEXEC);  // blocks for a reader
          if (fd >= 0) ::close(fd);
        }) {}
  ~FifoWriter() {
    const int fd = ::open(fifo_.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    thread_.join();
    if (fd >= 0) ::close(fd);
  }
  FifoWriter(const FifoWriter&) = delete;
  FifoWriter& operator=(const FifoWriter&) = delete;

 private:
  std::string fifo_;
  std::thread thread_;
};

}  // namespace sprof::test
