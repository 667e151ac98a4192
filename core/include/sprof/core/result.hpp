// sprof/core/result.hpp
//
// `Result<T>`: the return type of every fallible sprof operation. It is shaped like C++23's
// `std::expected<T, Error>` (has_value, value, error, operator*, operator->) so that moving to
// C++23 is a one-line alias. sprof code throws no exceptions; errors travel upward as values and
// only cli/ turns them into messages and exit codes.
//
// `Error` carries a small `Errc` that the CLI and the HTTP layer can switch on, a message that
// names the operation and its inputs, and the errno when a syscall failed.
#pragma once

#include <cerrno>
#include <string>
#include <utility>
#include <variant>

namespace sprof {

enum class Errc {
  kInvalidArgument,   // the caller (user or request) passed something unusable
  kNotFound,          // a file, module, process or symbol does not exist
  kPermissionDenied,  // EACCES/EPERM, perf_event_paranoid, ptrace scope
  kMalformed,         // bytes from a file, the kernel or the network do not parse
  kUnsupported,       // the platform lacks a feature (no PMU event, old kernel)
  kIo,                // read/write/mmap failures
  kTooLarge,          // input above a documented limit
  kExecFailed,        // the command to profile could not be executed
  kInternal,          // a bug; reported rather than aborting in long-running code
};

const char* errc_name(Errc code);

struct Error {
  Errc code = Errc::kInternal;
  std::string message;
  int sys_errno = 0;

  // Builds an error from the current `errno`: "what: strerror(errno)".
  static Error from_errno(std::string what, int err = errno);
  // Prepends context: "context: message".
  Error with_context(const std::string& context) const;
};

// Marker type for returning an error: `return unexpected(Error{...})` or `return fail(...)`.
struct Unexpected {
  Error error;
};
inline Unexpected unexpected(Error e) { return Unexpected{std::move(e)}; }
inline Unexpected fail(Errc code, std::string message) {
  return Unexpected{Error{code, std::move(message), 0}};
}

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::in_place_index<0>, std::move(value)) {}         // NOLINT(implicit)
  Result(Unexpected u) : v_(std::in_place_index<1>, std::move(u.error)) {}  // NOLINT(implicit)
  Result(Error e) : v_(std::in_place_index<1>, std::move(e)) {}             // NOLINT(implicit)

  bool has_value() const { return v_.index() == 0; }
  explicit operator bool() const { return has_value(); }

  T& value() & { return std::get<0>(v_); }
  const T& value() const& { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T&& operator*() && { return std::move(*this).value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  const Error& error() const& { return std::get<1>(v_); }
  Error&& error() && { return std::get<1>(std::move(v_)); }

  template <typename U>
  T value_or(U&& fallback) const& {
    return has_value() ? value() : static_cast<T>(std::forward<U>(fallback));
  }

 private:
  std::variant<T, Error> v_;
};

template <>
class [[nodiscard]] Result<void> {
 public:
  Result() = default;
  Result(Unexpected u) : error_(std::move(u.error)), ok_(false) {}  // NOLINT(implicit)
  Result(Error e) : error_(std::move(e)), ok_(false) {}             // NOLINT(implicit)

  bool has_value() const { return ok_; }
  explicit operator bool() const { return ok_; }
  void value() const {}
  const Error& error() const& { return error_; }
  Error&& error() && { return std::move(error_); }

 private:
  Error error_;
  bool ok_ = true;
};

inline Result<void> ok() { return {}; }

}  // namespace sprof

#define SPROF_CONCAT_INNER_(a, b) a##b
#define SPROF_CONCAT_(a, b) SPROF_CONCAT_INNER_(a, b)

// SPROF_TRY(auto x, expr): evaluates `expr` (a Result<T>); on error returns it from the enclosing
// function, else declares `x` holding the moved value (a declaration: no parentheses around it).
#define SPROF_TRY(decl, expr)                                                           \
  auto SPROF_CONCAT_(sprof_try_, __LINE__) = (expr);                                    \
  if (!SPROF_CONCAT_(sprof_try_, __LINE__).has_value())                                 \
    return ::sprof::unexpected(std::move(SPROF_CONCAT_(sprof_try_, __LINE__)).error()); \
  decl = std::move(*SPROF_CONCAT_(sprof_try_, __LINE__))  // NOLINT(bugprone-macro-parentheses)

// SPROF_TRY_VOID(expr): for Result<void>.
#define SPROF_TRY_VOID(expr)                                          \
  do {                                                                \
    auto sprof_try_void_ = (expr);                                    \
    if (!sprof_try_void_.has_value())                                 \
      return ::sprof::unexpected(std::move(sprof_try_void_).error()); \
  } while (false)
