// cli/docgen/completions.hpp: bash and zsh completion scripts from the option definitions.
#pragma once

#include <string>

#include "cli_model.hpp"

namespace sprof::cli::docgen {

// For bash-completion (/usr/share/bash-completion/completions/sprof).
std::string bash_completion(const CliDoc& doc);
// For zsh's completion system (/usr/share/zsh/vendor-completions/_sprof).
std::string zsh_completion(const CliDoc& doc);

}  // namespace sprof::cli::docgen
