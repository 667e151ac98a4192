// Compiled from a directory below the build tree with a relative source path (the way glibc
// compiles "../sysdeps/..." from "math/"), so its line table names this file relative to the
// compile directory. The test checks that sprof joins the two into this file's real path.
volatile int relative_sink;

__attribute__((noinline)) int relative_function(int x) {
  relative_sink = x;  // MARKER:relative_body
  return relative_sink * 3;
}

int main(int argc, char**) { return relative_function(argc); }
