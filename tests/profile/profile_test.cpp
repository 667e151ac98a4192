#include "sprof/profile/profile.hpp"

#include <doctest/doctest.h>

#include <optional>

using sprof::profile::Category;
using sprof::profile::Marker;
using sprof::profile::Thread;
using sprof::profile::UniqueString;

TEST_CASE("thread interns each string once and keeps insertion order") {
  Thread t;
  CHECK(t.intern_string("a") == 0);
  CHECK(t.intern_string("b") == 1);
  CHECK(t.intern_string(std::string("a")) == 0);
  CHECK(t.strings() == std::vector<std::string>{"a", "b"});
  CHECK(t.find_string("b") == 1U);
  CHECK_FALSE(t.find_string("c").has_value());
}

TEST_CASE("address frames are lowercase hex and shared with equal location frames") {
  Thread t;
  const uint32_t f = t.intern_address_frame(0xDEADBEEF, Category::kUser);
  CHECK(t.strings()[t.frames()[f].location] == "0xdeadbeef");
  CHECK(t.intern_address_frame(0xDEADBEEF, Category::kUser) == f);
  CHECK(t.intern_frame("0xdeadbeef", Category::kUser) == f);
  // A different category is a different frame over the same location string.
  const uint32_t kernel = t.intern_address_frame(0xDEADBEEF, Category::kKernel);
  CHECK(kernel != f);
  CHECK(t.frames()[kernel].location == t.frames()[f].location);
  CHECK(t.frames()[kernel].category == Category::kKernel);
  CHECK(t.strings().size() == 1);
  CHECK(t.strings()[t.frames()[t.intern_address_frame(0, Category::kUser)].location] == "0x0");
  CHECK(t.strings()[t.frames()[t.intern_address_frame(~0ULL, Category::kUser)].location] ==
        "0xffffffffffffffff");
}

TEST_CASE("recategorized address frames keep their index and are found under the new category") {
  Thread t;
  const uint32_t jit = t.intern_address_frame(0x7000, Category::kUser);
  const uint32_t user = t.intern_address_frame(0x9000, Category::kUser);
  const uint32_t idle = t.intern_address_frame(0x7000, Category::kIdle);
  const uint32_t named = t.intern_frame("main", Category::kUser);
  const uint32_t stack = t.intern_stack(t.intern_stack(std::nullopt, user), jit);
  size_t asked = 0;
  t.recategorize_address_frames([&](uint64_t address, Category c) -> std::optional<Category> {
    ++asked;
    if (address == 0x7000 && c == Category::kUser) return Category::kJit;
    return std::nullopt;
  });
  CHECK(asked == 3);  // address frames only
  CHECK(t.frames()[jit].category == Category::kJit);
  CHECK(t.frames()[user].category == Category::kUser);
  CHECK(t.frames()[idle].category == Category::kIdle);
  CHECK(t.frames()[named].category == Category::kUser);
  CHECK(t.frames().size() == 4);
  CHECK(t.stacks()[stack].frame == jit);
  // Both intern paths find the moved frame under its new category, and no longer under the old.
  CHECK(t.intern_address_frame(0x7000, Category::kJit) == jit);
  CHECK(t.intern_frame("0x7000", Category::kJit) == jit);
  const uint32_t fresh = t.intern_address_frame(0x7000, Category::kUser);
  CHECK(fresh == 4);
  CHECK(t.frames()[fresh].category == Category::kUser);
}

TEST_CASE("stacks are deduplicated by prefix and frame and stay topologically ordered") {
  Thread t;
  const uint32_t a = t.intern_frame("a", Category::kUser);
  const uint32_t b = t.intern_frame("b", Category::kUser);
  const uint32_t root = t.intern_stack(std::nullopt, a);
  const uint32_t child = t.intern_stack(root, b);
  CHECK(t.intern_stack(std::nullopt, a) == root);
  CHECK(t.intern_stack(root, b) == child);
  // Same frame under another prefix, and as a root, are distinct stacks.
  const uint32_t b_root = t.intern_stack(std::nullopt, b);
  CHECK(b_root != child);
  CHECK(t.intern_stack(child, b) != child);
  for (size_t i = 0; i < t.stacks().size(); ++i) {
    if (t.stacks()[i].prefix) CHECK(*t.stacks()[i].prefix < i);
  }
  CHECK(t.stacks().size() == 4);
  CHECK(t.stacks()[root].prefix == std::nullopt);
}

TEST_CASE("adding a marker interns its name and unique-string fields") {
  Thread t;
  Marker m;
  m.name = "read";
  m.type = "Syscall";
  m.fields = {{"path", UniqueString{"/etc/hosts"}}, {"syscall", std::string("not interned")}};
  t.add_marker(m);
  t.add_marker(m);
  CHECK(t.strings() == std::vector<std::string>{"read", "/etc/hosts"});
  CHECK(t.markers().size() == 2);
}

TEST_CASE("default categories match the Category enum and have one grey and one Idle") {
  const auto categories = sprof::profile::default_categories();
  REQUIRE(categories.size() == 5);
  CHECK(categories[static_cast<size_t>(Category::kOther)].name == "Other");
  CHECK(categories[static_cast<size_t>(Category::kOther)].color == "grey");
  CHECK(categories[static_cast<size_t>(Category::kIdle)].name == "Idle");
  CHECK(categories[static_cast<size_t>(Category::kUser)].name == "User");
  CHECK(categories[static_cast<size_t>(Category::kKernel)].name == "Kernel");
  CHECK(categories[static_cast<size_t>(Category::kJit)].name == "JIT");
  for (const auto& c : categories) CHECK_FALSE(c.subcategories.empty());
}
