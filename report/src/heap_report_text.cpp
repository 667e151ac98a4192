#include "sprof/report/heap_report_text.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace sprof::report {

namespace {

// "1.5 MiB", "512 B".
std::string human_bytes(int64_t bytes) {
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double value = std::abs(static_cast<double>(bytes));
  size_t unit = 0;
  while (value >= 1024 && unit + 1 < std::size(kUnits)) {
    value /= 1024;
    ++unit;
  }
  char text[32];
  if (unit == 0) {
    std::snprintf(text, sizeof text, "%s%.0f B", bytes < 0 ? "-" : "", value);
  } else {
    std::snprintf(text, sizeof text, "%s%.1f %s", bytes < 0 ? "-" : "", value, kUnits[unit]);
  }
  return text;
}

std::string count(double n) { return thousands(static_cast<uint64_t>(std::llround(n))); }

std::string milliseconds(double ms) {
  char text[32];
  std::snprintf(text, sizeof text,
                ms < 10     ? "%.3f ms"
                : ms < 1000 ? "%.1f ms"
                            : "%.2f s",
                ms < 1000 ? ms : ms / 1000);
  return text;
}

// "1 ms": the short-lived threshold, as the column heading says it.
std::string threshold() {
  char text[32];
  std::snprintf(text, sizeof text, "%g ms", heap::kShortLivedMs);
  return text;
}

std::string right(const std::string& s, size_t width) {
  const size_t w = display_width(s);
  return w < width ? std::string(width - w, ' ') + s : s;
}

std::string percent_text(double part, double whole) {
  char text[16];
  std::snprintf(text, sizeof text, "%.0f%%", whole > 0 ? 100 * part / whole : 0.0);
  return text;
}

// "leaf < caller < ...": the leaf shortened to fit, then as many callers as fit whole (each cut
// to a few words at most), then "< ..." for the rest.
std::string site_name(const ReportProfile& profile, const HeapSite& site, size_t width) {
  constexpr size_t kCallerWidth = 32;
  constexpr std::string_view kMore = " < ...";
  if (site.path.empty()) return "(no stack)";
  std::string out = shorten_name(profile.functions[site.path[0]].name, width);
  for (size_t i = 1; i < site.path.size(); ++i) {
    const std::string caller =
        " < " + shorten_name(profile.functions[site.path[i]].name, kCallerWidth);
    const bool last = i + 1 == site.path.size() && !site.cut;
    if (display_width(out) + display_width(caller) + (last ? 0 : kMore.size()) > width) {
      return out + std::string(kMore);
    }
    out += caller;
  }
  return site.cut ? out + std::string(kMore) : out;
}

// Column widths of a site line, and its heading.
constexpr size_t kBytes = 9, kCount = 9, kLife = 9, kShort = 7;
constexpr size_t kFixed = 3 * kBytes + 2 * kCount + kLife + kShort + size_t{7} * 2;

std::string site_heading() {
  return right("Bytes", kBytes) + "  " + right("Calls", kCount) + "  " +
         right("Temporary", kCount) + "  " + right("AtPeak", kBytes) + "  " +
         right("Leaked", kBytes) + "  " + right("Lifetime", kLife) + "  " +
         right("<" + threshold(), kShort) + "  Site\n";
}

std::string site_line(const ReportProfile& profile, const HeapSite& site, size_t width) {
  const heap::SiteStats& s = site.stats;
  const std::string lifetime = s.freed > 0 ? milliseconds(s.average_lifetime_ms()) : "-";
  return right(human_bytes(s.bytes), kBytes) + "  " + right(count(s.calls), kCount) + "  " +
         right(count(s.temporary), kCount) + "  " + right(human_bytes(s.peak_bytes), kBytes) +
         "  " + right(human_bytes(s.leaked_bytes), kBytes) + "  " + right(lifetime, kLife) + "  " +
         right(count(s.short_lived), kShort) + "  " +
         site_name(profile, site, width > kFixed + 20 ? width - kFixed : 20) + "\n";
}

std::string header(const HeapReport& r) {
  const HeapTotalsView& t = r.totals;
  std::string out = "# heap: ";
  out += r.sampled ? "sampled allocations (one per " +
                         human_bytes(static_cast<int64_t>(r.interval_bytes)) +
                         "): per-site counts are estimates"
                   : "every allocation recorded";
  out += t.from_recording ? "; totals of the whole recording\n" : "; totals of these rows\n";
  out += "# " + count(t.calls) + " calls, " + human_bytes(t.bytes) + " allocated; " +
         count(t.temporary) + " temporary (" + percent_text(t.temporary, t.calls) + "), " +
         count(t.short_lived) + " freed within " + threshold() + ", mean lifetime " +
         milliseconds(t.mean_lifetime_ms) + "\n";
  out += "# peak " + human_bytes(t.peak_bytes) + " live at " + milliseconds(t.peak_time_ms) + "; " +
         human_bytes(t.leaked_bytes) + " in " + thousands(t.leaked_blocks) +
         " blocks still live at exit\n";
  if (r.rows.all.folded_rows > 0) {
    out += "# " + thousands(r.rows.all.folded_rows) + " folded rows (" +
           human_bytes(r.rows.all.folded_bytes) +
           ", many short-lived blocks each) count in bytes and at the peak only: the per-site "
           "calls, temporaries and lifetimes leave them out\n";
  }
  return out;
}

std::string histogram(const HeapTotalsView& t, size_t width) {
  double most = 0, all = 0;
  for (double n : t.sizes) {
    most = std::max(most, n);
    all += n;
  }
  std::string out = "\n# sizes requested            calls\n";
  const size_t bar_room = std::clamp<size_t>(width > 45 ? width - 45 : 10, 10, 40);
  for (size_t b = 0; b < t.sizes.size(); ++b) {
    if (std::llround(t.sizes[b]) == 0) continue;
    const uint64_t low = heap::bucket_lower_bound(b);
    const std::string range = b <= 1 ? std::to_string(low) + " B"
                                     : human_bytes(static_cast<int64_t>(low)) + " - " +
                                           human_bytes(static_cast<int64_t>(2 * low - 1));
    const auto bar =
        static_cast<size_t>(std::llround(static_cast<double>(bar_room) * t.sizes[b] / most));
    out += "  " + right(range, 22) + "  " + right(count(t.sizes[b]), 10) + " " +
           right(percent_text(t.sizes[b], all), 4) + "  " + std::string(bar, '#') + "\n";
  }
  return out;
}

}  // namespace

std::string heap_report_text(const ReportProfile& profile, const HeapReport& report, size_t limit,
                             const TextStyle& style) {
  std::string out = header(report) + "\n" + site_heading();
  size_t shown = 0;
  for (const HeapSite& site : report.sites) {
    if (limit != 0 && shown == limit) break;
    out += site_line(profile, site, style.width);
    ++shown;
  }
  if (shown < report.sites.size()) {
    out += "# " + thousands(report.sites.size() - shown) + " more sites (--limit)\n";
  }
  out += histogram(report.totals, style.width);
  return out;
}

}  // namespace sprof::report
