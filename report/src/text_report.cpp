#include "sprof/report/text_report.hpp"

#include <algorithm>
#include <cinttypes>
#include <cstdio>

namespace sprof::report {

namespace {

constexpr std::string_view kEllipsis = "\u2026";

// "100.00%  " per percentage column; "123456789  " for samples.
constexpr size_t kPercentColumns = size_t{2} * 9;
constexpr size_t kSamplesColumn = 9 + 2;
// Below this width the function list has no module column.
constexpr size_t kNarrowWidth = 60;

// The headings over the percentage columns, aligned with "%6.2f%%".
std::string columns_heading(bool with_self) {
  return with_self ? " Total%    Self%  " : " Total%  ";
}

// Replaces the contents of every `open`…`close` group opened at nesting `level` (1: outermost)
// with "…"; `name` unchanged when the brackets do not balance (as in "operator<").
std::string collapse_groups(std::string_view name, char open, char close, int level) {
  std::string out;
  int depth = 0;
  for (char c : name) {
    if (c == open) {
      ++depth;
      if (depth < level) out += c;
      if (depth == level) (out += c) += kEllipsis;
    } else if (c == close) {
      if (depth <= level) out += c;
      if (--depth < 0) return std::string(name);
    } else if (depth < level) {
      out += c;
    }
  }
  return depth == 0 ? out : std::string(name);
}

// The parameter list is the last top-level "(...)" group: "f(int) const" -> "f(…) const".
// Earlier groups are part of the name ("(anonymous namespace)::f").
std::string collapse_parameters(std::string_view name) {
  const size_t close = name.rfind(')');
  if (close == std::string_view::npos) return std::string(name);
  int depth = 0;
  for (size_t i = close + 1; i-- > 0;) {
    if (name[i] == ')') ++depth;
    if (name[i] == '(' && --depth == 0) {
      if (close == i + 1) return std::string(name);  // "()": nothing to collapse
      return std::string(name.substr(0, i + 1)) + std::string(kEllipsis) +
             std::string(name.substr(close));
    }
  }
  return std::string(name);
}

// The last `width` columns of `s` behind an "…", starting at a scope ("::") when one is in the
// first half of what fits, so that no half word is left in front.
std::string keep_end(std::string_view s, size_t width) {
  if (width == 0) return {};
  size_t start = s.size();
  for (size_t kept = 0; start > 0 && kept < width - 1;) {
    --start;
    if ((static_cast<unsigned char>(s[start]) & 0xC0) != 0x80) ++kept;
  }
  std::string_view tail = s.substr(start);
  const size_t scope = tail.find("::");
  if (scope != std::string_view::npos && scope > 0 && scope < tail.size() / 2) {
    tail.remove_prefix(scope);
  }
  return std::string(kEllipsis) + std::string(tail);
}

std::string pad_right(std::string s, size_t width) {
  const size_t w = display_width(s);
  if (w < width) s.append(width - w, ' ');
  return s;
}

std::string format(const char* fmt, double a) {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, a);
  return buf;
}

class Painter {
 public:
  explicit Painter(bool colour) : colour_(colour) {}
  // perf report's thresholds: red from 5%, green from 0.5%.
  std::string percent(double value) const {
    std::string text = format("%6.2f%%", value);
    if (!colour_) return text;
    const char* code = value >= 5 ? "\x1b[31m" : value >= 0.5 ? "\x1b[32m" : nullptr;
    return code ? code + text + "\x1b[0m" : text;
  }
  std::string dim(const std::string& text) const {
    return colour_ && !text.empty() ? "\x1b[2m" + text + "\x1b[0m" : text;
  }
  std::string bold(const std::string& text) const {
    return colour_ ? "\x1b[1m" + text + "\x1b[0m" : text;
  }

 private:
  bool colour_;
};

std::string module_of(const Function& f) { return f.module.empty() ? "[unknown]" : f.module; }

void functions_text(std::string& out, const ReportProfile& profile, const Section& section,
                    const ViewOptions& options, const TextStyle& style) {
  const Painter paint(style.colour);
  const FunctionStats& stats = section.functions;
  std::vector<const FunctionStat*> shown;
  for (const FunctionStat& s : stats.functions) {
    if (options.limit != 0 && shown.size() == options.limit) break;
    const uint64_t key = options.sort == SortKey::kSelf ? s.self : s.total;
    if (percent(key, stats.weight) < options.min_percent) break;  // sorted by `key`
    shown.push_back(&s);
  }
  // Module column: as wide as the widest shown, within a fifth of the line; none on narrow ones.
  size_t module_width = 0;
  if (style.width >= kNarrowWidth) {
    module_width = 6;
    for (const FunctionStat* s : shown) {
      module_width =
          std::max(module_width, display_width(module_of(profile.functions[s->function])));
    }
    module_width = std::min(module_width, style.width / 5);
  }
  const size_t fixed = kPercentColumns + kSamplesColumn + (module_width ? module_width + 2 : 0);
  const size_t name_width = style.width > fixed + 8 ? style.width - fixed : 8;
  out += paint.bold(columns_heading(true) + "  Samples  " +
                    (module_width ? pad_right("Module", module_width) + "  " : "") + "Function") +
         "\n";
  for (const FunctionStat* s : shown) {
    const Function& f = profile.functions[s->function];
    char samples[32];
    std::snprintf(samples, sizeof samples, "%9" PRIu64, s->total);
    out += paint.percent(percent(s->total, stats.weight)) + "  " +
           paint.percent(percent(s->self, stats.weight)) + "  " + samples + "  ";
    if (module_width) {
      out += paint.dim(pad_right(shorten_name(module_of(f), module_width), module_width)) + "  ";
    }
    out += shorten_name(f.name, name_width) + "\n";
  }
  if (shown.size() < stats.functions.size()) {
    out += paint.dim("# " + thousands(stats.functions.size() - shown.size()) +
                     " more functions (--limit, --min-percent)") +
           "\n";
  }
}

class TreePrinter {
 public:
  TreePrinter(const ReportProfile& profile, const CallTree& tree, const ViewOptions& options,
              const TextStyle& style, std::string& out)
      : profile_(profile),
        tree_(tree),
        options_(options),
        style_(style),
        paint_(style.colour),
        out_(out) {}

  void print() {
    const bool callers = options_.view == View::kCallers;
    out_ += paint_.bold(columns_heading(!callers) +
                        (callers ? "Callers (FUNC, then who called it)" : "Call tree (top-down)")) +
            "\n";
    for (uint32_t root : tree_.roots) print_node(root, 0);
  }

 private:
  void print_node(uint32_t index, size_t depth) {
    const CallNode& node = tree_.nodes[index];
    const double share = percent(node.total, tree_.weight);
    if (share < options_.min_percent) return;
    if (options_.max_depth != 0 && depth >= options_.max_depth) return;
    const bool callers = options_.view == View::kCallers;
    std::string line = paint_.percent(share) + "  ";
    size_t used = kPercentColumns / 2;
    if (!callers) {
      line += paint_.percent(percent(node.self, tree_.weight)) + "  ";
      used = kPercentColumns;
    }
    // Deep trees keep at least 24 columns for the name: the indent stops growing first.
    const size_t indent =
        std::min(depth * 2, style_.width > used + 24 ? style_.width - used - 24 : 0);
    line += std::string(indent, ' ');
    used += indent;
    const Function& f = profile_.functions[node.function];
    const std::string module = " [" + module_of(f) + "]";
    const size_t room = style_.width > used ? style_.width - used : 0;
    if (display_width(f.name) + display_width(module) <= room || room < 40) {
      line += shorten_name(f.name, room >= 40 ? room - display_width(module) : room);
      if (room >= 40) line += paint_.dim(module);
    } else {
      line += shorten_name(f.name, room);
    }
    out_ += line + "\n";
    for (uint32_t child : node.children) print_node(child, depth + 1);
  }

  const ReportProfile& profile_;
  const CallTree& tree_;
  const ViewOptions& options_;
  const TextStyle& style_;
  Painter paint_;
  std::string& out_;
};

}  // namespace

std::string thousands(uint64_t n) {
  const std::string digits = std::to_string(n);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i != 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

size_t display_width(std::string_view s) {
  return static_cast<size_t>(std::count_if(
      s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

std::string shorten_name(std::string_view name, size_t width) {
  if (display_width(name) <= width) return std::string(name);
  std::string shorter = collapse_parameters(name);
  if (display_width(shorter) <= width) return shorter;
  // Inner template arguments first: "std::vector<std::pair<…>>::push_back" says more than
  // "std::vector<…>::push_back".
  for (int level : {2, 1}) {
    shorter = collapse_groups(shorter, '<', '>', level);
    if (display_width(shorter) <= width) return shorter;
  }
  return keep_end(shorter, width);
}

std::string header_text(const ReportSummary& s, const std::string& file, const TextStyle& style) {
  const Painter paint(style.colour);
  std::string out =
      paint.bold("# sprof report: " + (s.name.empty() ? file : s.name + " (" + file + ")")) + "\n";
  out += "# duration " + format("%.2f s", s.duration_ms / 1000.0);
  if (!s.event.empty()) out += ", event " + s.event;
  out += "\n# " + thousands(s.samples) + " samples";
  if (s.lost_samples) out += " (" + thousands(static_cast<uint64_t>(*s.lost_samples)) + " lost)";
  if (s.idle_samples) out += ", " + thousands(s.idle_samples) + " idle left out (--include-idle)";
  out += ", " + std::to_string(s.processes) + (s.processes == 1 ? " process, " : " processes, ") +
         std::to_string(s.threads) + (s.threads == 1 ? " thread" : " threads") + "\n";
  return out;
}

std::string sections_text(const ReportProfile& profile, const std::vector<Section>& sections,
                          const ViewOptions& options, const TextStyle& style) {
  std::string out;
  const Painter paint(style.colour);
  for (const Section& section : sections) {
    out += "\n";
    if (options.per_thread && section.threads.size() == 1) {
      const ReportThread& t = *section.threads.front();
      out += paint.bold("# thread " + thread_label(t) + " of " + t.process_name + " (" +
                        std::to_string(t.pid) + "): " + thousands(t.samples) + " samples") +
             "\n";
    }
    if (options.view == View::kFunctions) {
      functions_text(out, profile, section, options, style);
    } else {
      TreePrinter(profile, section.tree, options, style, out).print();
    }
  }
  return out;
}

}  // namespace sprof::report
