#include <doctest/doctest.h>

#include <string>

#include "labs/06-transfers/reference.h"

TEST_CASE("lab 06 reference computes 2x + 1") {
    const float x[] = {0.0f, 1.0f, -0.5f, 3.25f};
    float y[4];
    transform_reference(x, y, 4);
    CHECK(y[0] == 1.0f);
    CHECK(y[1] == 3.0f);
    CHECK(y[2] == 0.0f);
    CHECK(y[3] == 7.5f);
}

TEST_CASE("lab 06 refuses sizes the host cannot hold, pinned, in half its RAM") {
    const double gib = 1073741824.0;
    CHECK(host_memory_problem(1000, 16 * gib).empty());
    CHECK(host_memory_problem(1000, 0).empty());  // RAM unknown: allowed
    // 5 arrays of 4 B: 2^28 floats need 5 GiB, more than half of 8 GiB.
    const std::string why = host_memory_problem(1LL << 28, 8 * gib);
    CHECK(why.find("5.0 GiB") != std::string::npos);
    CHECK(why.find("8.0 GiB") != std::string::npos);
    CHECK(host_memory_problem(1LL << 28, 10 * gib).empty());
}

TEST_CASE("lab 06 bars are proportional, never empty for a measured value, never too long") {
    CHECK(bar(10, 10, 8) == "########");
    CHECK(bar(5, 10, 8) == "####    ");
    CHECK(bar(0.01, 10, 8) == "#       ");
    CHECK(bar(0, 10, 8) == "        ");
    CHECK(bar(-1, 10, 4) == "    ");
    CHECK(bar(20, 10, 4) == "####");
    CHECK(bar(1, 0, 3) == "   ");
}
