#pragma once

extern "C" int sprof_shared_c_function(int x);

namespace sprof_shared {
class Widget {
 public:
  explicit Widget(int seed) : seed_(seed) {}
  int compute(int x) const;

 private:
  int seed_;
};
}  // namespace sprof_shared
