#include <doctest/doctest.h>

#include "labs/07-coalescing/reference.h"

TEST_CASE("lab 07 sectors touched by one warp-wide load") {
    CHECK(sectors_touched(0, 4, 4) == 4);       // 32 consecutive floats: one 128-byte line
    CHECK(sectors_touched(4, 4, 4) == 5);       // shifted by one float: straddles a sector more
    CHECK(sectors_touched(0, 12, 4) == 12);     // .x of a 12-byte struct: 384 bytes spanned
    CHECK(sectors_touched(0, 16, 16) == 16);    // a 16-byte struct per lane: 512 bytes
    CHECK(sectors_touched(0, 32, 4) == 32);     // one float per sector
    CHECK(sectors_touched(0, 64, 4) == 32);     // stride beyond a sector: still one each
    CHECK(sectors_touched(0, 0, 4) == 1);       // every lane on one address: a broadcast
    CHECK(sectors_touched(0, 8, 4) == 8);
}

TEST_CASE("lab 07 load efficiency: useful bytes over fetched bytes") {
    CHECK(load_efficiency(0, 4, 4) == doctest::Approx(1.0));
    CHECK(load_efficiency(0, 12, 4) == doctest::Approx(1.0 / 3));
    CHECK(load_efficiency(0, 32, 4) == doctest::Approx(0.125));
    CHECK(load_efficiency(4, 4, 4) == doctest::Approx(0.8));
}

TEST_CASE("lab 07 reference applies scale and shift with one rounding") {
    CHECK(affine_reference(2.0f, 1.25f, 0.5f) == 3.0f);
    CHECK(affine_reference(-1.0f, 1.25f, -0.25f) == -1.5f);
    CHECK(affine_reference(0.1f, 1.25f, 2.0f) ==
          static_cast<float>(1.25 * static_cast<double>(0.1f) + 2.0));
}
