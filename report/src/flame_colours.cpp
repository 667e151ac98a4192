#include "sprof/report/flame_colours.hpp"

#include <algorithm>
#include <cmath>

namespace sprof::report {

namespace {

// FNV-1a: a fixed hash, unlike std::hash, so colours are the same on every build.
uint32_t name_hash(std::string_view name) {
  uint32_t h = 2166136261u;
  for (const char c : name) {
    h ^= static_cast<unsigned char>(c);
    h *= 16777619u;
  }
  return h;
}

uint8_t channel(double base, double range, double shade) {
  return static_cast<uint8_t>(std::lround(base + range * shade));
}

// `a` and `b` in [0, 1] pick the shade.
Rgb kind_shade(CodeKind kind, double a, double b) {
  switch (kind) {
    case CodeKind::kUser: return {channel(215, 40, a), channel(75, 90, b), channel(50, 25, a)};
    case CodeKind::kLibrary: return {channel(215, 35, a), channel(175, 55, b), channel(45, 35, a)};
    case CodeKind::kKernel: return {channel(85, 50, a), channel(150, 55, b), channel(210, 40, a)};
    case CodeKind::kJit: return {channel(80, 55, a), channel(185, 55, b), channel(80, 45, a)};
    case CodeKind::kOther: break;
  }
  const uint8_t grey = channel(170, 40, a);
  return {grey, grey, grey};
}

}  // namespace

Rgb code_kind_fill(CodeKind kind, std::string_view name) {
  const uint32_t h = name_hash(name);
  return kind_shade(kind, static_cast<double>(h & 0xff) / 255.0,
                    static_cast<double>((h >> 8) & 0xff) / 255.0);
}

std::vector<LegendEntry> code_kind_legend() {
  return {{"user", kind_shade(CodeKind::kUser, 0.5, 0.5)},
          {"library", kind_shade(CodeKind::kLibrary, 0.5, 0.5)},
          {"kernel", kind_shade(CodeKind::kKernel, 0.5, 0.5)},
          {"JIT", kind_shade(CodeKind::kJit, 0.5, 0.5)},
          {"other", kind_shade(CodeKind::kOther, 0.5, 0.5)}};
}

Rgb change_fill(double delta, double scale) {
  const double strength = scale <= 0 ? 0.0 : std::clamp(std::abs(delta) / scale, 0.0, 1.0);
  // Even the smallest change is tinted, so "changed" and "unchanged" differ at a glance.
  const auto fade = static_cast<uint8_t>(std::lround(235 - 175 * strength));
  if (delta > 0) return {255, fade, fade};
  if (delta < 0) return {fade, fade, 255};
  return {235, 235, 235};
}

}  // namespace sprof::report
