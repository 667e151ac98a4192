/* An inline function in another file: its line rows and call site name this header. */
static inline __attribute__((always_inline)) int seed_square(int x) { return x * x; }
