#include <unistd.h>

#include <chrono>
#include <cstdio>

#include "sprof/presymbolicate/presymbolicate.hpp"
#include "sprof/profile/processed_writer.hpp"

namespace sprof::presymbolicate {

namespace {

// A name beside `path` that keeps its ending (so ".gz" still selects gzip) and is hidden, unique
// to this process.
std::string temporary_path_for(const std::string& path) {
  const size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "" : path.substr(0, slash + 1);
  const std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  return dir + ".sprof-" + std::to_string(::getpid()) + "-" + base;
}

}  // namespace

Result<SaveReport> save_self_contained(const profile::Profile& profile,
                                       symbolicator::Symbolicator& symbolicator,
                                       const std::string& path) {
  SaveReport report;
  Presymbolication symbols = presymbolicate(profile, symbolicator);
  report.symbols = std::move(symbols.report);
  const auto start = std::chrono::steady_clock::now();
  const std::string temporary = temporary_path_for(path);
  auto written = profile::write_processed_file(profile, symbols.symbols, temporary);
  if (!written) return std::move(written).error();
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    const Error error = Error::from_errno("rename " + temporary + " to " + path);
    std::remove(temporary.c_str());
    return error;
  }
  report.bytes = *written;
  report.write_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return report;
}

}  // namespace sprof::presymbolicate
