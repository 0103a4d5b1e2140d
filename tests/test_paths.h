// Where the tests and benchmarks find the source tree and the programs they run. The paths are
// set once per build directory in one generated file (test_paths.cpp, written by
// tests/CMakeLists.txt into the build directory), not as -D flags on every test file: absolute
// paths on every compile line made ccache miss each test file in every fresh clone (another
// path), which cost a fresh-clone CI run most of its build time. The macros keep their old
// names; each is a `const char*` expression.
#pragma once

namespace ibw::test_paths {

const char* source_dir();       // the source tree's root
const char* test_data_dir();    // tests/data
const char* ibwarden_binary();  // the built `ibwarden`
const char* labgen_binary();    // the built `ibw-labgen`

}  // namespace ibw::test_paths

#define IBW_SOURCE_DIR (::ibw::test_paths::source_dir())
#define IBW_TEST_DATA (::ibw::test_paths::test_data_dir())
#define IBW_BINARY (::ibw::test_paths::ibwarden_binary())
#define IBW_LABGEN (::ibw::test_paths::labgen_binary())
