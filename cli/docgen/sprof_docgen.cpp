// sprof-docgen: writes sprof's man page and shell completions from the same option definitions
// that `sprof --help` prints (cli/definitions), at build time.
//   sprof-docgen man|bash|zsh OUTPUT
#include <cstdio>
#include <fstream>
#include <string>

#include "cli_model.hpp"
#include "completions.hpp"
#include "man_page.hpp"

int main(int argc, char** argv) {
  using namespace sprof::cli::docgen;
  if (argc != 3) {
    std::fprintf(stderr, "usage: sprof-docgen man|bash|zsh OUTPUT\n");
    return 1;
  }
  const std::string what = argv[1];
  const CliDoc doc = describe_cli();
  std::string text;
  if (what == "man") {
    text = man_page(doc);
  } else if (what == "bash") {
    text = bash_completion(doc);
  } else if (what == "zsh") {
    text = zsh_completion(doc);
  } else {
    std::fprintf(stderr, "sprof-docgen: unknown output '%s'\n", what.c_str());
    return 1;
  }
  std::ofstream out(argv[2], std::ios::binary);
  out << text;
  out.close();
  if (!out) {
    std::fprintf(stderr, "sprof-docgen: cannot write %s\n", argv[2]);
    return 1;
  }
  return 0;
}
