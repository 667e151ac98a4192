#include "sprof/core/fd_io.hpp"

#include <unistd.h>

#include <cerrno>
#include <string>

namespace sprof {

Result<void> read_exactly_at(int fd, uint64_t offset, std::span<uint8_t> out) {
  size_t done = 0;
  while (done < out.size()) {
    const ssize_t n =
        ::pread(fd, out.data() + done, out.size() - done, static_cast<off_t>(offset + done));
    if (n < 0) {
      if (errno == EINTR) continue;
      Error e = Error::from_errno("pread");
      e.code = Errc::kIo;
      return e;
    }
    if (n == 0) {
      return fail(Errc::kMalformed, "the file ends at byte " + std::to_string(offset + done) +
                                        ", before byte " + std::to_string(offset + out.size()));
    }
    done += static_cast<size_t>(n);
  }
  return ok();
}

}  // namespace sprof
