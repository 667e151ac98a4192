// report/src/svg_text.hpp: text as it goes into an SVG file. Names come from binaries and may hold
// anything: C++ templates (< > &), quotes, control bytes, broken UTF-8; all must still give a
// well-formed XML document, which a browser refuses to show at the first bad byte.
#pragma once

#include <string>
#include <string_view>

namespace sprof::report::svg {

// Appends `text` escaped for XML character data and attribute values. Control bytes XML 1.0 does
// not allow and bytes that are not UTF-8 become '?'.
void append_escaped(std::string& out, std::string_view text);

// What of `name` fits in `width_px` at `char_px` per character: the whole name, its start ended
// by "..", or nothing when fewer than three characters fit. Never cuts a UTF-8 character.
std::string fitted_label(std::string_view name, double width_px, double char_px);

// Appends `value` with two decimals ("12.50"), the precision of every coordinate.
void append_fixed(std::string& out, double value);

}  // namespace sprof::report::svg
