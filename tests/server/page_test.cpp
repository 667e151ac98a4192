#include "sprof/server/page.hpp"

#include <doctest/doctest.h>

#include "sprof/web/assets.hpp"

using sprof::server::html_escape;
using sprof::server::PageInfo;
using sprof::server::render_page;

TEST_CASE("html escaping covers markup and both quote characters") {
  CHECK(html_escape("a<b>&\"c\"'d'") == "a&lt;b&gt;&amp;&quot;c&quot;&#39;d&#39;");
  CHECK(html_escape("plain text") == "plain text");
}

TEST_CASE("page placeholders are replaced by escaped values") {
  const PageInfo values = {{"COMMAND", "./app --x '<script>'"}, {"SAMPLES", "1234"}};
  CHECK(render_page("<p>{{COMMAND}}</p><b>{{SAMPLES}}</b>", values) ==
        "<p>./app --x &#39;&lt;script&gt;&#39;</p><b>1234</b>");
}

TEST_CASE("unknown placeholders render empty and unterminated braces are kept") {
  const PageInfo values = {{"A", "x"}};
  CHECK(render_page("[{{MISSING}}]{{A}}", values) == "[]x");
  CHECK(render_page("{{A}} {{ not closed", values) == "x {{ not closed");
  CHECK(render_page("", values) == "");
}

TEST_CASE("embedded page and stylesheet exist with the right types") {
  const auto* page = sprof::web::find_embedded_asset("index.html");
  const auto* css = sprof::web::find_embedded_asset("style.css");
  REQUIRE(page != nullptr);
  REQUIRE(css != nullptr);
  CHECK(page->content_type == "text/html; charset=utf-8");
  CHECK(css->content_type == "text/css; charset=utf-8");
  CHECK(page->bytes.starts_with("<!doctype html>"));
  CHECK(css->bytes.find("--accent") != std::string_view::npos);
  CHECK(sprof::web::find_embedded_asset("missing.js") == nullptr);
  CHECK(sprof::web::embedded_assets().size() == 2);
}

TEST_CASE("embedded page uses every documented placeholder and leaves no braces when filled") {
  const auto* page = sprof::web::find_embedded_asset("index.html");
  REQUIRE(page != nullptr);
  PageInfo values;
  for (const char* name :
       {"BASE_URL", "PROFILE_URL", "PROFILER_URL", "SYMBOL_SERVER_URL", "PROFILE_FILENAME",
        "COMMAND", "DURATION", "PROCESSES", "THREADS", "SAMPLES", "LOST", "VERSION"}) {
    CAPTURE(name);
    CHECK(page->bytes.find("{{" + std::string(name) + "}}") != std::string_view::npos);
    values[name] = std::string("value-of-") + name;
  }
  const std::string html = render_page(page->bytes, values);
  CHECK(html.find("{{") == std::string::npos);
  CHECK(html.find("href=\"value-of-PROFILER_URL\"") != std::string::npos);
  CHECK(html.find("download=\"value-of-PROFILE_FILENAME\"") != std::string::npos);
  // Self-contained: no attribute points at another host (links come from placeholders).
  CHECK(html.find("=\"http") == std::string::npos);
  CHECK(html.find("=\"//") == std::string::npos);
}
