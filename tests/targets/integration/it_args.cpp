// it_args ARGS...: prints "argv[0] <its file name>" and then "arg <value>" for each argument, so
// tests can check that a command line reached the program exactly as typed.
#include <cstdio>
#include <cstring>

int main(int argc, char** argv) {
  const char* slash = std::strrchr(argv[0], '/');
  std::printf("argv[0] %s\n", slash ? slash + 1 : argv[0]);
  for (int i = 1; i < argc; ++i) std::printf("arg %s\n", argv[i]);
  return 0;
}
