// The unit-test runner: host-only C++ built with g++ (Debian's doctest 2.4.9 does not compile
// under nvcc). Each test_*.cpp file tests one host-side piece of the harness or of a lab.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
