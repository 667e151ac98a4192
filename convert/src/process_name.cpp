#include "sprof/convert/process_name.hpp"

#include <algorithm>

namespace sprof::convert {

namespace {

// The longest comm the kernel keeps (TASK_COMM_LEN is 16, with the terminating NUL).
constexpr size_t kMaxCommBytes = 15;

std::string_view basename_of(std::string_view path) {
  const auto slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

}  // namespace

ProcessName ProcessName::from_comm(std::string comm) {
  ProcessName name;
  name.awaiting_first_file_ = comm.size() == kMaxCommBytes;
  name.executable_ = std::move(comm);
  name.known_ = true;
  return name;
}

ProcessName ProcessName::unknown(uint32_t pid) {
  ProcessName name;
  name.executable_ = "pid " + std::to_string(pid);
  return name;
}

bool ProcessName::note_mapped_file(std::string_view path) {
  if (!awaiting_first_file_ || path.empty() || path.front() != '/') return false;
  awaiting_first_file_ = false;
  const std::string_view file = basename_of(path);
  if (file.size() <= executable_.size() || !file.starts_with(executable_)) return false;
  executable_ = std::string(file);
  return true;
}

bool ProcessName::set_arguments(const std::vector<std::string>& argv, int max_args) {
  std::string arguments;
  const size_t shown =
      std::min(argv.empty() ? 0 : argv.size() - 1, static_cast<size_t>(std::max(max_args, 0)));
  for (size_t i = 1; i <= shown; ++i) arguments += " " + argv[i];
  if (arguments == arguments_) return false;
  arguments_ = std::move(arguments);
  return true;
}

std::string ProcessName::display() const { return executable_ + arguments_; }

std::string join_arguments(const std::vector<std::string>& argv) {
  std::string line;
  for (const auto& arg : argv) {
    if (!line.empty()) line += ' ';
    line += arg;
  }
  return line;
}

}  // namespace sprof::convert
