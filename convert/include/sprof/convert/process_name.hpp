// sprof/convert/process_name.hpp
//
// How a process image is named in the profile: by its executable's file name, as it was exec'd.
// The kernel's comm (exec records, /proc/PID/comm) is that name cut to 15 bytes
// (TASK_COMM_LEN - 1): "bench_calls_nof" for bench_calls_nofp. The image's first mapped file,
// which the kernel maps at exec before anything else, completes a comm that may have been cut
// when the comm is a prefix of that file's name (a script's first file is its interpreter, which
// does not match, so the script keeps its comm). With --include-args, up to N command-line
// arguments follow the name. Threads keep their comm names; this names processes only.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace sprof::convert {

class ProcessName {
 public:
  ProcessName() = default;
  // From the kernel's comm of the process (the exec record's, or /proc/PID/comm).
  static ProcessName from_comm(std::string comm);
  // A stand-in ("pid N") for a process nothing names yet.
  static ProcessName unknown(uint32_t pid);

  bool known() const { return known_; }
  // A file the image mapped, in the order they were mapped. The first completes a cut comm;
  // true when the name changed.
  bool note_mapped_file(std::string_view path);
  // Shows up to `max_args` of argv[1..] after the name (0: none). True when the name changed.
  bool set_arguments(const std::vector<std::string>& argv, int max_args);
  // "bench_calls_nofp", or "app --flag value" with arguments.
  std::string display() const;
  // The name without arguments.
  const std::string& executable() const { return executable_; }

 private:
  std::string executable_;
  std::string arguments_;  // " arg1 arg2", or empty
  bool known_ = false;
  bool awaiting_first_file_ = false;  // the comm may be cut and no file was mapped since
};

// The arguments joined by spaces, as a command line is shown.
std::string join_arguments(const std::vector<std::string>& argv);

}  // namespace sprof::convert
