// Catch2's runner (main and the framework's implementation), compiled once for every test
// executable: the single-header Catch2 2 makes this one translation unit cost more to compile
// than any test file (about 40 s at -O3, 160 s with the sanitizers at -O2 -g).
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
