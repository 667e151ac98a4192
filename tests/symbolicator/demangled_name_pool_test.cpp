#include "demangled_name_pool.hpp"

#include <doctest/doctest.h>

#include <string>
#include <thread>
#include <vector>

namespace sprof::symbolicator::detail {
namespace {

TEST_CASE("a name spelled the same way is pooled once, whichever bytes spell it") {
  DemangledNamePool pool;
  std::string first = "_ZNKSt6vectorIiSaIiEE4sizeEv";
  std::string second = first;  // another tree's copy of the same DWARF name
  const PooledName* a = pool.intern(first);
  const PooledName* b = pool.intern(second);
  CHECK(a == b);
  CHECK(pool.intern("main") != a);
  CHECK(a->demangled() == "std::vector<int, std::allocator<int> >::size() const");
  CHECK(&a->demangled() == &b->demangled());
}

TEST_CASE("a pooled name keeps its own copy: the bytes it was read from may go away") {
  DemangledNamePool pool;
  std::string mapped = "_Z3fooi";
  const PooledName* name = pool.intern(mapped);
  mapped.assign(mapped.size(), 'x');  // the debug file's pages given back and reused
  CHECK(name->spelled() == "_Z3fooi");
  CHECK(name->demangled() == "foo(int)");
  CHECK(pool.intern("_Z3fooi") == name);
}

TEST_CASE("names that are not mangled are kept as they are spelled") {
  DemangledNamePool pool;
  CHECK(pool.intern("__GI_feclearexcept")->demangled() == "__GI_feclearexcept");
}

TEST_CASE("threads interning and demangling the same names agree on one entry each") {
  DemangledNamePool pool;
  const std::vector<std::string> names = {"_Z1fv", "_Z1gi", "_ZN2ns1hEd", "plain"};
  std::vector<std::vector<const PooledName*>> seen(4);
  {
    std::vector<std::jthread> threads;
    for (size_t t = 0; t < seen.size(); ++t) {
      threads.emplace_back([&, t] {
        for (int round = 0; round < 200; ++round) {
          for (const std::string& n : names) {
            const PooledName* p = pool.intern(n);
            (void)p->demangled();
            if (round == 0) seen[t].push_back(p);
          }
        }
      });
    }
  }
  for (size_t t = 1; t < seen.size(); ++t) CHECK(seen[t] == seen[0]);
  CHECK(seen[0][2]->demangled() == "ns::h(double)");
}

}  // namespace
}  // namespace sprof::symbolicator::detail
