// ibwarden: thin entry point; all behaviour lives in the libraries.
#include <exception>
#include <iostream>

#include "cli/alloc_tuning.h"
#include "cli/commands.h"

int main(int argc, char** argv) {
  ibw::cli::tune_allocator(argv);
  try {
    return ibw::cli::run_cli(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "ibwarden: internal error: " << e.what() << "\n";
    return 2;
  }
}
