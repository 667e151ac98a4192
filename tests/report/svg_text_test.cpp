#include "svg_text.hpp"

#include <doctest/doctest.h>

#include <string>

namespace sprof::report::svg {
namespace {

std::string escaped(std::string_view text) {
  std::string out;
  append_escaped(out, text);
  return out;
}

TEST_CASE("svg text: markup characters are escaped, bytes XML cannot hold become '?'") {
  CHECK(escaped("std::map<K, V>::at(\"a\" & 'b')") ==
        "std::map&lt;K, V&gt;::at(&quot;a&quot; &amp; &apos;b&apos;)");
  CHECK(escaped("caf\xc3\xa9 \xe2\x86\x92 \xf0\x9f\x94\xa5") ==
        "caf\xc3\xa9 \xe2\x86\x92 \xf0\x9f\x94\xa5");
  CHECK(escaped("bad\xff\xc3 \x01\x1b\tend\n") == "bad?? ??\tend\n");
  CHECK(escaped("\xc0\xaf \xed\xa0\x80") == "?? ???");  // overlong '/', a surrogate
  CHECK(escaped("cut \xe2\x86") == "cut ??");
}

TEST_CASE("svg text: labels fit their width, cut with '..', never inside a UTF-8 character") {
  // 7.2 px a character, 3 px padding each side: 100 px hold 13 characters.
  CHECK(fitted_label("compute", 100, 7.2) == "compute");
  CHECK(fitted_label("a_rather_long_function_name", 100, 7.2) == "a_rather_lo..");
  CHECK(fitted_label("a_rather_long_function_name", 100, 7.2).size() == 13);
  CHECK(fitted_label("anything", 27, 7.2) == "");  // room for 2 characters: no label
  CHECK(fitted_label("abcdef", 27.6, 7.2) == "a..");
  CHECK(fitted_label("\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9", 50, 7.2) ==
        "\xc3\xa9\xc3\xa9..");  // 6 fit: 4 bytes before "..", a whole character kept
}

TEST_CASE("svg numbers have two decimals whatever the value") {
  std::string out;
  append_fixed(out, 674.2857142);
  out += ' ';
  append_fixed(out, 10);
  CHECK(out == "674.29 10.00");
}

}  // namespace
}  // namespace sprof::report::svg
