#pragma once

extern "C" int sprof_shared_c_function(int x);
extern "C" int sprof_shared_public(int x);

namespace sprof_shared {
extern volatile int shared_sink;

class Widget {
 public:
  explicit Widget(int seed) : seed_(seed) {}
  int compute(int x) const;

 private:
  int seed_;
};
}  // namespace sprof_shared
