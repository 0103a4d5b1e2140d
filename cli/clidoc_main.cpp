// ibw-clidoc: prints the ibwarden(1) man page (`ibw-clidoc man`) or the bash completion script
// (`ibw-clidoc bash`), both generated from the CLI's declaration, to standard output or to the
// file named after it. Run at build time.
#include <fstream>
#include <iostream>
#include <string>

#include "cli/app.h"
#include "cli/help_doc.h"

int main(int argc, char** argv) {
  std::string what = argc == 2 || argc == 3 ? argv[1] : "";
  if (what != "man" && what != "bash") {
    std::cerr << "usage: ibw-clidoc man|bash [FILE]\n";
    return 2;
  }
  ibw::cli::CliTree tree = ibw::cli::build_app();
  std::string text =
      what == "man" ? ibw::cli::man_page(*tree.root) : ibw::cli::bash_completion(*tree.root);
  if (argc == 2) return std::cout << text << std::flush ? 0 : 1;
  std::ofstream out(argv[2], std::ios::binary | std::ios::trunc);
  if (!(out << text) || !out.flush()) {
    std::cerr << "ibw-clidoc: cannot write " << argv[2] << "\n";
    return 1;
  }
  return 0;
}
