// cli/terminal_style.hpp: how wide and whether coloured a report prints on the terminal
// (`sprof report`, `sprof diff`).
#pragma once

#include <cstddef>

#include "report_options.hpp"
#include "sprof/report/text_report.hpp"

namespace sprof::cli {

// `width` 0: the terminal's, else $COLUMNS, else 80. Colours on a TTY unless NO_COLOR is set.
report::TextStyle terminal_style(size_t width, ColourChoice colour);

}  // namespace sprof::cli
