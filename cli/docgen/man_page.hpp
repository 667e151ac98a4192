// cli/docgen/man_page.hpp: sprof(1) from the option definitions.
#pragma once

#include <string>

#include "cli_model.hpp"

namespace sprof::cli::docgen {

std::string man_page(const CliDoc& doc);

}  // namespace sprof::cli::docgen
