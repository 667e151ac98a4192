// sprof/profile/string_table.hpp
//
// An interning string table: each distinct string gets the next index, and indexes never change.
// Both profile formats store strings this way (the Gecko `stringTable` and the processed
// `stringArray` of each thread), so the model's `Thread` and the writers share this one class.
//
// Not thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace sprof::profile {

class StringTable {
 public:
  uint32_t intern(std::string_view s);
  std::optional<uint32_t> find(std::string_view s) const;
  const std::vector<std::string>& strings() const { return strings_; }
  size_t size() const { return strings_.size(); }

 private:
  // Transparent, so lookups by `std::string_view` don't allocate.
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const noexcept {
      return std::hash<std::string_view>{}(s);
    }
  };

  std::vector<std::string> strings_;
  std::unordered_map<std::string, uint32_t, Hash, std::equal_to<>> index_;
};

}  // namespace sprof::profile
