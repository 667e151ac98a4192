// sprof_test/json_query.hpp
//
// Read-only JSON queries for tests, by JSON pointer ("/threads/0/name"), over simdjson's DOM with
// its error-code API. Every accessor returns nullopt when the path is missing or has another
// type, so tests write `CHECK(doc.string("/meta/product") == "sprof")`. Header-only; link
// simdjson::simdjson.
#pragma once

#include <simdjson.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sprof::test {

class JsonDoc {
 public:
  explicit JsonDoc(std::string_view text) : text_(text) {
    error_ = parser_.parse(text_).get(root_);
  }
  JsonDoc(const JsonDoc&) = delete;
  JsonDoc& operator=(const JsonDoc&) = delete;

  bool ok() const { return error_ == simdjson::SUCCESS; }
  std::string error() const { return simdjson::error_message(error_); }
  simdjson::dom::element root() const { return root_; }

  std::optional<simdjson::dom::element> at(std::string_view pointer) const {
    simdjson::dom::element e;
    if (!ok() || root_.at_pointer(pointer).get(e) != simdjson::SUCCESS) return std::nullopt;
    return e;
  }
  bool has(std::string_view pointer) const { return at(pointer).has_value(); }
  bool is_null(std::string_view pointer) const {
    auto e = at(pointer);
    return e && e->is_null();
  }
  std::optional<std::string_view> string(std::string_view pointer) const {
    return get<std::string_view>(pointer);
  }
  std::optional<int64_t> integer(std::string_view pointer) const {
    auto e = at(pointer);
    if (!e || (!e->is_int64() && !e->is_uint64())) return std::nullopt;
    return get<int64_t>(pointer);
  }
  std::optional<uint64_t> unsigned_integer(std::string_view pointer) const {
    auto e = at(pointer);
    if (!e || (!e->is_int64() && !e->is_uint64())) return std::nullopt;
    return get<uint64_t>(pointer);
  }
  std::optional<double> number(std::string_view pointer) const { return get<double>(pointer); }
  std::optional<bool> boolean(std::string_view pointer) const { return get<bool>(pointer); }
  // Length of an array or number of members of an object.
  std::optional<size_t> size(std::string_view pointer) const {
    auto e = at(pointer);
    simdjson::dom::array a;
    simdjson::dom::object o;
    if (e && e->get_array().get(a) == simdjson::SUCCESS) return a.size();
    if (e && e->get_object().get(o) == simdjson::SUCCESS) return o.size();
    return std::nullopt;
  }
  // Member names of an object, in document order.
  std::vector<std::string> keys(std::string_view pointer) const {
    std::vector<std::string> out;
    auto e = at(pointer);
    simdjson::dom::object o;
    if (e && e->get_object().get(o) == simdjson::SUCCESS) {
      for (auto field : o) out.emplace_back(field.key);
    }
    return out;
  }

 private:
  template <typename T>
  std::optional<T> get(std::string_view pointer) const {
    auto e = at(pointer);
    T v{};
    if (!e || e->get<T>().get(v) != simdjson::SUCCESS) return std::nullopt;
    return v;
  }

  simdjson::padded_string text_;
  simdjson::dom::parser parser_;
  simdjson::dom::element root_;
  simdjson::error_code error_ = simdjson::UNINITIALIZED;
};

}  // namespace sprof::test
