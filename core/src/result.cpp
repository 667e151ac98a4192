#include "sprof/core/result.hpp"

#include <cstring>

namespace sprof {

const char* errc_name(Errc code) {
  switch (code) {
    case Errc::kInvalidArgument: return "invalid argument";
    case Errc::kNotFound: return "not found";
    case Errc::kPermissionDenied: return "permission denied";
    case Errc::kMalformed: return "malformed input";
    case Errc::kUnsupported: return "unsupported";
    case Errc::kIo: return "I/O error";
    case Errc::kTooLarge: return "too large";
    case Errc::kExecFailed: return "cannot execute";
    case Errc::kInternal: return "internal error";
  }
  return "unknown error";
}

Error Error::from_errno(std::string what, int err) {
  Errc code = Errc::kIo;
  if (err == EACCES || err == EPERM) code = Errc::kPermissionDenied;
  if (err == ENOENT || err == ESRCH) code = Errc::kNotFound;
  if (err == EINVAL) code = Errc::kInvalidArgument;
  if (err == ENODEV || err == EOPNOTSUPP || err == ENOSYS) code = Errc::kUnsupported;
  return Error{code, std::move(what) + ": " + std::strerror(err), err};
}

Error Error::with_context(const std::string& context) const {
  return Error{code, context + ": " + message, sys_errno};
}

}  // namespace sprof
