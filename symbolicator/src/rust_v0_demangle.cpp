// Rust "v0" symbol mangling (RFC 2603), printed the way rustc-demangle's alternate form does
// (no crate disambiguator hashes, no type suffixes on constants). Grammar summary:
//   symbol   = "_R" path [instantiating-crate path] [vendor suffix]
//   path     = "C" ident | "N" ns path ident | "M" impl-path type | "X" impl-path type path
//            | "Y" type path | "I" path {generic-arg} "E" | backref
//   type     = basic-char | path | "A" type const | "S" type | "T" {type} "E" | "R"/"Q" [lt] type
//            | "P"/"O" type | "F" fn-sig | "D" dyn-bounds lifetime | backref
//   const    = "p" | basic-char ["n"] hex "_" | "e" hex "_" (str bytes) | "R"/"Q" const
//            | "A" {const} "E" | "T" {const} "E" | "V" path ("U" | "T" {const} "E"
//            | "S" {[disambiguator] ident const} "E") | backref
//   backref  = "B" base62  (a byte offset counted from just after "_R"; must point backwards)
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "punycode.hpp"
#include "sprof/symbolicator/demangle.hpp"
#include "utf8.hpp"

namespace sprof::symbolicator {
namespace {

// Backrefs let a short symbol describe a deep or exponentially large tree, so both the nesting
// depth and the total work (grammar nodes visited) are bounded; a symbol past either limit is
// left mangled.
constexpr int kMaxDepth = 300;
constexpr size_t kMaxNodes = 20000;
constexpr size_t kMaxOutputBytes = size_t{64} * 1024;  // also bounds "for<'a, ...>" binder lists

class V0Printer {
 public:
  explicit V0Printer(std::string_view sym) : sym_(sym) {}

  std::optional<std::string> run() {
    if (!sym_.empty() && std::isdigit(static_cast<unsigned char>(sym_[0]))) {
      return std::nullopt;  // an explicit encoding version: none is defined yet
    }
    if (!path(true) || too_long_) return std::nullopt;
    if (pos_ < sym_.size() && std::isupper(static_cast<unsigned char>(sym_[pos_]))) {
      printing_ = false;  // the instantiating crate is not shown
      if (!path(false)) return std::nullopt;
      printing_ = true;
    }
    std::string_view suffix = sym_.substr(pos_);
    if (!suffix.empty() && suffix[0] != '.' && suffix[0] != '$') return std::nullopt;
    // LLVM's ThinLTO suffix ".llvm.<hash>" is noise; other suffixes are kept verbatim.
    if (!suffix.starts_with(".llvm.")) out_ += suffix;
    return std::move(out_);
  }

 private:
  struct Ident {
    std::string_view ascii;
    std::string_view punycode;
    bool empty() const { return ascii.empty() && punycode.empty(); }
  };

  // ---- lexing ----
  bool eat(char c) {
    if (pos_ < sym_.size() && sym_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  char next() { return pos_ < sym_.size() ? sym_[pos_++] : '\0'; }
  char peek() const { return pos_ < sym_.size() ? sym_[pos_] : '\0'; }
  void print(std::string_view s) {
    if (!printing_) return;
    if (out_.size() + s.size() > kMaxOutputBytes) {
      too_long_ = true;
      return;
    }
    out_ += s;
  }

  std::optional<uint64_t> base62() {
    if (eat('_')) return 0;
    uint64_t x = 0;
    for (;;) {
      const char c = next();
      if (c == '_') return x + 1;
      uint64_t d = 0;
      if (c >= '0' && c <= '9')
        d = static_cast<uint64_t>(c - '0');
      else if (c >= 'a' && c <= 'z')
        d = static_cast<uint64_t>(c - 'a') + 10;
      else if (c >= 'A' && c <= 'Z')
        d = static_cast<uint64_t>(c - 'A') + 36;
      else
        return std::nullopt;
      if (x > (UINT64_MAX - d) / 62) return std::nullopt;
      x = x * 62 + d;
    }
  }
  // "<tag> base62" meaning value+1, or 0 when the tag is absent (disambiguators, binders).
  std::optional<uint64_t> optional_base62(char tag) {
    if (!eat(tag)) return 0;
    auto v = base62();
    if (!v) return std::nullopt;
    return *v + 1;
  }
  std::optional<uint64_t> decimal() {
    if (!std::isdigit(static_cast<unsigned char>(peek()))) return std::nullopt;
    if (eat('0')) return 0;  // no leading zeros
    uint64_t x = 0;
    while (std::isdigit(static_cast<unsigned char>(peek()))) {
      x = x * 10 + static_cast<uint64_t>(next() - '0');
      if (x > sym_.size()) return std::nullopt;
    }
    return x;
  }
  std::optional<Ident> ident() {
    const bool is_punycode = eat('u');
    auto len = decimal();
    if (!len) return std::nullopt;
    eat('_');  // separates the length from an identifier starting with a digit or '_'
    if (*len > sym_.size() - pos_) return std::nullopt;
    std::string_view bytes = sym_.substr(pos_, *len);
    pos_ += *len;
    if (!is_punycode) return Ident{bytes, {}};
    const size_t split = bytes.rfind('_');
    if (split == std::string_view::npos) return Ident{{}, bytes};
    return Ident{bytes.substr(0, split), bytes.substr(split + 1)};
  }
  void print_ident(const Ident& id) {
    if (id.punycode.empty()) {
      print(id.ascii);
      return;
    }
    std::string decoded;
    if (detail::decode_punycode(id.ascii, id.punycode, decoded)) {
      print(decoded);
    } else {
      print("punycode{");
      print(id.ascii);
      print("-");
      print(id.punycode);
      print("}");
    }
  }

  // Runs `parse` at the backref's target, then returns here.
  template <typename F>
  bool backref(F&& parse) {
    const size_t start = pos_ - 1;  // the 'B'
    auto target = base62();
    if (!target || *target >= start) return false;
    if (!printing_) return true;  // nothing to show; the target was already validated once
    const size_t saved = pos_;
    pos_ = *target;
    const bool ok = parse();
    pos_ = saved;
    return ok;
  }

  struct DepthGuard {
    explicit DepthGuard(int& d) : depth(d) { ++depth; }
    ~DepthGuard() { --depth; }
    int& depth;
  };
  // Called on entering every path, type and constant.
  bool within_limits() { return depth_ <= kMaxDepth && ++nodes_ <= kMaxNodes && !too_long_; }

  // ---- paths ----
  bool path(bool in_value) {
    DepthGuard guard(depth_);
    if (!within_limits()) return false;
    switch (next()) {
      case 'C': {
        if (!optional_base62('s')) return false;
        auto id = ident();
        if (!id) return false;
        print_ident(*id);
        return true;
      }
      case 'N': {
        const char ns = next();
        if (!std::isalpha(static_cast<unsigned char>(ns))) return false;
        if (!path(in_value)) return false;
        auto dis = optional_base62('s');
        auto id = ident();
        if (!dis || !id) return false;
        if (std::isupper(static_cast<unsigned char>(ns))) {
          print("::{");
          print(ns == 'C' ? "closure" : ns == 'S' ? "shim" : std::string(1, ns));
          if (!id->empty()) {
            print(":");
            print_ident(*id);
          }
          print("#" + std::to_string(*dis) + "}");
        } else if (!id->empty()) {
          print("::");
          print_ident(*id);
        }
        return true;
      }
      case 'M':
      case 'X':
      case 'Y': {
        const char tag = sym_[pos_ - 1];
        if (tag != 'Y') {  // impl-path: where the impl is; not shown
          if (!optional_base62('s')) return false;
          const bool saved = printing_;
          printing_ = false;
          const bool ok = path(false);
          printing_ = saved;
          if (!ok) return false;
        }
        print("<");
        if (!type()) return false;
        if (tag != 'M') {
          print(" as ");
          if (!path(false)) return false;
        }
        print(">");
        return true;
      }
      case 'I': {
        if (!path(in_value)) return false;
        if (in_value) print("::");
        print("<");
        if (!generic_args()) return false;
        print(">");
        return true;
      }
      case 'B': return backref([&] { return path(in_value); });
      default: return false;
    }
  }

  // Generic arguments up to and including 'E', comma-separated.
  bool generic_args() {
    for (size_t i = 0; !eat('E'); ++i) {
      if (pos_ >= sym_.size()) return false;
      if (i > 0) print(", ");
      if (!generic_arg()) return false;
    }
    return true;
  }
  bool generic_arg() {
    if (eat('L')) {
      auto lt = base62();
      return lt && lifetime(*lt);
    }
    if (eat('K')) return constant(false);
    return type();
  }

  bool lifetime(uint64_t index) {
    if (index == 0) {
      print("'_");
      return true;
    }
    if (index > bound_lifetimes_) return false;
    const uint64_t depth = bound_lifetimes_ - index;
    if (depth < 26) {
      print("'");
      print(std::string(1, static_cast<char>('a' + depth)));
    } else {
      print("'_" + std::to_string(depth));
    }
    return true;
  }

  // "G" base62 introduces `count` lifetimes, printed as "for<'a, 'b> ".
  bool binder(uint64_t& bound_here) {
    auto count = optional_base62('G');
    if (!count) return false;
    bound_here = *count;
    if (*count == 0) return true;
    if (*count > 1000) return false;  // also when not printing, where output limits don't apply
    print("for<");
    for (uint64_t i = 0; i < *count; ++i) {
      if (too_long_) return false;
      if (i > 0) print(", ");
      ++bound_lifetimes_;
      if (!lifetime(1)) return false;
    }
    print("> ");
    return true;
  }

  // ---- types ----
  static const char* basic_type(char c) {
    switch (c) {
      case 'a': return "i8";
      case 'b': return "bool";
      case 'c': return "char";
      case 'd': return "f64";
      case 'e': return "str";
      case 'f': return "f32";
      case 'h': return "u8";
      case 'i': return "isize";
      case 'j': return "usize";
      case 'l': return "i32";
      case 'm': return "u32";
      case 'n': return "i128";
      case 'o': return "u128";
      case 's': return "i16";
      case 't': return "u16";
      case 'u': return "()";
      case 'v': return "...";
      case 'x': return "i64";
      case 'y': return "u64";
      case 'z': return "!";
      case 'p': return "_";
      default: return nullptr;
    }
  }

  bool type() {
    DepthGuard guard(depth_);
    if (!within_limits()) return false;
    if (const char* basic = basic_type(peek())) {
      ++pos_;
      print(basic);
      return true;
    }
    switch (peek()) {
      case 'R':
      case 'Q': {
        const bool mut = next() == 'Q';
        print("&");
        if (eat('L')) {
          auto lt = base62();
          if (!lt) return false;
          if (*lt != 0) {
            if (!lifetime(*lt)) return false;
            print(" ");
          }
        }
        if (mut) print("mut ");
        return type();
      }
      case 'P':
      case 'O': print(next() == 'P' ? "*const " : "*mut "); return type();
      case 'A':
      case 'S': {
        const bool array = next() == 'A';
        print("[");
        if (!type()) return false;
        if (array) {
          print("; ");
          if (!constant(true)) return false;
        }
        print("]");
        return true;
      }
      case 'T': {
        ++pos_;
        print("(");
        size_t count = 0;
        for (; !eat('E'); ++count) {
          if (pos_ >= sym_.size()) return false;
          if (count > 0) print(", ");
          if (!type()) return false;
        }
        if (count == 1) print(",");
        print(")");
        return true;
      }
      case 'F': ++pos_; return fn_signature();
      case 'D': ++pos_; return dyn_bounds();
      case 'B': ++pos_; return backref([&] { return type(); });
      default: return path(false);
    }
  }

  bool fn_signature() {
    const uint64_t saved_bound = bound_lifetimes_;
    uint64_t bound = 0;
    if (!binder(bound)) return false;
    if (eat('U')) print("unsafe ");
    if (eat('K')) {
      print("extern \"");
      if (eat('C')) {
        print("C");
      } else {
        auto abi = ident();
        if (!abi || !abi->punycode.empty()) return false;
        std::string name(abi->ascii);
        for (char& c : name) {
          if (c == '_') c = '-';
        }
        print(name);
      }
      print("\" ");
    }
    print("fn(");
    for (size_t i = 0; !eat('E'); ++i) {
      if (pos_ >= sym_.size()) return false;
      if (i > 0) print(", ");
      if (!type()) return false;
    }
    print(")");
    if (!eat('u')) {
      print(" -> ");
      if (!type()) return false;
    }
    bound_lifetimes_ = saved_bound;
    return true;
  }

  // A trait path whose generic argument list is left open so associated-type bindings can be
  // added: "Trait<A" + ", Output = B" + ">".
  bool path_maybe_open_generics(bool& open) {
    if (eat('B')) return backref([&] { return path_maybe_open_generics(open); });
    if (eat('I')) {
      if (!path(false)) return false;
      print("<");
      for (size_t i = 0; peek() != 'E'; ++i) {
        if (pos_ >= sym_.size()) return false;
        if (i > 0) print(", ");
        if (!generic_arg()) return false;
      }
      ++pos_;  // 'E'
      open = true;
      return true;
    }
    return path(false);
  }

  bool dyn_bounds() {
    const uint64_t saved_bound = bound_lifetimes_;
    print("dyn ");
    uint64_t bound = 0;
    if (!binder(bound)) return false;
    for (size_t i = 0; !eat('E'); ++i) {
      if (pos_ >= sym_.size()) return false;
      if (i > 0) print(" + ");
      bool open = false;
      if (!path_maybe_open_generics(open)) return false;
      while (eat('p')) {
        print(open ? ", " : "<");
        open = true;
        auto name = ident();
        if (!name) return false;
        print_ident(*name);
        print(" = ");
        if (!type()) return false;
      }
      if (open) print(">");
    }
    bound_lifetimes_ = saved_bound;
    if (!eat('L')) return false;
    auto lt = base62();
    if (!lt) return false;
    if (*lt != 0) {
      print(" + ");
      return lifetime(*lt);
    }
    return true;
  }

  // ---- constants ----
  // `in_value`: nested in another constant. Literals print bare; a str, reference, array, tuple
  // or ADT value in generic-argument position is wrapped in braces, as Rust source needs it
  // ("f::<{[1, 2]}>"), but not inside another constant or as an array length.
  bool constant(bool in_value) {
    DepthGuard guard(depth_);
    if (!within_limits()) return false;
    const char tag = next();
    switch (tag) {
      case 'B': return backref([&] { return constant(in_value); });
      case 'p': print("_"); return true;
      case 'R':
      case 'Q':
        // `&*"..."` (a reference to a str constant) is what a string literal is: printed bare.
        if (tag == 'R' && eat('e')) return str_literal();
        return braced(in_value, [&] {
          print(tag == 'R' ? "&" : "&mut ");
          return constant(true);
        });
      case 'e':
        return braced(in_value, [&] {
          print("*");
          return str_literal();
        });
      case 'A':
        return braced(in_value, [&] {
          print("[");
          size_t count = 0;
          if (!constants_until_end(count)) return false;
          print("]");
          return true;
        });
      case 'T':
        return braced(in_value, [&] {
          print("(");
          size_t count = 0;
          if (!constants_until_end(count)) return false;
          print(count == 1 ? ",)" : ")");
          return true;
        });
      case 'V': return braced(in_value, [&] { return adt_constant(); });
      default: return scalar_constant(tag);
    }
  }

  template <typename F>
  bool braced(bool in_value, F&& inner) {
    if (!in_value) print("{");
    if (!inner()) return false;
    if (!in_value) print("}");
    return true;
  }

  // Comma-separated constants up to and including 'E'.
  bool constants_until_end(size_t& count) {
    for (count = 0; !eat('E'); ++count) {
      if (pos_ >= sym_.size()) return false;
      if (count > 0) print(", ");
      if (!constant(true)) return false;
    }
    return true;
  }

  // An enum variant or struct value: its path, then "U" (unit), "T" {const} "E" (tuple-like) or
  // "S" {[disambiguator] ident const} "E" (named fields).
  bool adt_constant() {
    if (!path(true)) return false;
    switch (next()) {
      case 'U': return true;
      case 'T': {
        print("(");
        size_t count = 0;
        if (!constants_until_end(count)) return false;
        print(")");
        return true;
      }
      case 'S':
        print(" { ");
        for (size_t i = 0; !eat('E'); ++i) {
          if (pos_ >= sym_.size()) return false;
          if (i > 0) print(", ");
          auto dis = optional_base62('s');
          auto field = ident();
          if (!dis || !field) return false;
          print_ident(*field);
          print(": ");
          if (!constant(true)) return false;
        }
        print(" }");
        return true;
      default: return false;
    }
  }

  // Lower-case hex digits up to and including '_'.
  std::optional<std::string_view> hex_nibbles() {
    const size_t start = pos_;
    while (std::isxdigit(static_cast<unsigned char>(peek())) &&
           !std::isupper(static_cast<unsigned char>(peek()))) {
      ++pos_;
    }
    const std::string_view hex = sym_.substr(start, pos_ - start);
    if (!eat('_')) return std::nullopt;
    return hex;
  }

  // Integers, bool and char: a basic-type tag, then the value in hex.
  bool scalar_constant(char ty) {
    const bool negative =
        (ty == 'a' || ty == 's' || ty == 'l' || ty == 'x' || ty == 'n' || ty == 'i') && eat('n');
    auto nibbles = hex_nibbles();
    if (!nibbles) return false;
    std::string_view hex = *nibbles;
    while (hex.size() > 1 && hex[0] == '0') hex.remove_prefix(1);
    const bool fits = hex.size() <= 16;
    const uint64_t value = fits && !hex.empty() ? std::stoull(std::string(hex), nullptr, 16) : 0;
    switch (ty) {
      case 'h':
      case 't':
      case 'm':
      case 'y':
      case 'o':
      case 'j':
      case 'a':
      case 's':
      case 'l':
      case 'x':
      case 'n':
      case 'i':
        if (negative) print("-");
        print(fits ? std::to_string(value) : "0x" + std::string(hex));
        return true;
      case 'b':
        if (!fits || value > 1) return false;
        print(value == 1 ? "true" : "false");
        return true;
      case 'c': {
        if (!fits || value > 0x10FFFF || (value >= 0xD800 && value <= 0xDFFF)) return false;
        std::string quoted = "'";
        append_escaped(quoted, '\'', static_cast<uint32_t>(value));
        print(quoted + "'");
        return true;
      }
      default: return false;
    }
  }

  // A str constant: its UTF-8 bytes in hex, printed as a string literal.
  bool str_literal() {
    auto hex = hex_nibbles();
    if (!hex || hex->size() % 2 != 0) return false;
    std::string bytes;
    for (size_t i = 0; i < hex->size(); i += 2) {
      bytes.push_back(static_cast<char>(std::stoi(std::string(hex->substr(i, 2)), nullptr, 16)));
    }
    std::string quoted = "\"";
    std::string_view rest = bytes;
    while (!rest.empty()) {
      auto cp = detail::next_utf8(rest);
      if (!cp) return false;
      append_escaped(quoted, '"', *cp);
    }
    print(quoted + "\"");
    return true;
  }

  // A character inside `quote`s as Rust's char::escape_debug writes it (rustc-demangle's
  // choice), except that the other kind of quote is left alone. Printable non-ASCII characters
  // stay as they are; control characters become \u{..}.
  static void append_escaped(std::string& out, char quote, uint32_t cp) {
    switch (cp) {
      case '\t': out += "\\t"; return;
      case '\r': out += "\\r"; return;
      case '\n': out += "\\n"; return;
      case '\\': out += "\\\\"; return;
      case '\0': out += "\\0"; return;
      case '\'':
      case '"':
        if (cp == static_cast<uint32_t>(quote)) out += '\\';
        out += static_cast<char>(cp);
        return;
      default: break;
    }
    if (cp < 0x20 || (cp >= 0x7F && cp < 0xA0)) {
      char buf[16];
      std::snprintf(buf, sizeof(buf), "\\u{%x}", static_cast<unsigned>(cp));
      out += buf;
    } else {
      detail::append_utf8(out, cp);
    }
  }

  std::string_view sym_;
  size_t pos_ = 0;
  std::string out_;
  bool printing_ = true;
  int depth_ = 0;
  size_t nodes_ = 0;
  bool too_long_ = false;
  uint64_t bound_lifetimes_ = 0;
};

}  // namespace

std::optional<std::string> demangle_rust_v0(std::string_view name) {
  if (!name.starts_with("_R")) return std::nullopt;
  return V0Printer(name.substr(2)).run();
}

}  // namespace sprof::symbolicator
