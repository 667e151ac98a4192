#include "module_code.hpp"

#include <unistd.h>

#include "json_reply.hpp"
#include "sprof/core/untrusted_file.hpp"
#include "sprof/elf/module_identity.hpp"

namespace sprof::api::detail {

Result<ModuleCode> read_module_code(const std::string& path, uint64_t relative_start,
                                    uint64_t length) {
  SPROF_TRY(const auto identity, elf::read_module_identity(path));
  const uint64_t svma = relative_start + identity.base_vaddr;
  const elf::LoadSegment* segment = nullptr;
  for (const auto& load : identity.loads) {
    if (svma >= load.vaddr && svma - load.vaddr < load.filesz) {
      segment = &load;
      break;
    }
  }
  if (segment == nullptr) {
    return fail(Errc::kNotFound, "address " + std::string(Hex(relative_start).view()) +
                                     " is not in a loaded part of " + path);
  }
  const uint64_t in_segment = svma - segment->vaddr;
  const uint64_t available = segment->filesz - in_segment;
  ModuleCode code;
  code.arch = identity.arch();
  code.bytes.resize(static_cast<size_t>(length < available ? length : available));

  SPROF_TRY(UntrustedFile file, open_untrusted_file(path, Symlinks::kFollow));
  const UniqueFd fd = std::move(file.fd);
  size_t done = 0;
  while (done < code.bytes.size()) {
    const auto offset = static_cast<off_t>(segment->offset + in_segment + done);
    const ssize_t n = ::pread(fd.get(), code.bytes.data() + done, code.bytes.size() - done, offset);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Error::from_errno("read " + path);
    if (n == 0) break;  // file shorter than its program headers claim
    done += static_cast<size_t>(n);
  }
  code.bytes.resize(done);
  return code;
}

}  // namespace sprof::api::detail
