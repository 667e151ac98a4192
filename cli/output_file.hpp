// cli/output_file.hpp: writing a command's whole output to -o FILE or standard output.
#pragma once

#include <string>

namespace sprof::cli {

// An empty path or "-" is standard output.
bool is_standard_output(const std::string& path);

// Writes `bytes` to `path`; on failure prints sprof's message naming it and returns false.
bool write_output(const std::string& path, const std::string& bytes);

}  // namespace sprof::cli
