#include <doctest/doctest.h>

#include "labs/01-vector-add/reference.h"

TEST_CASE("lab 01 reference adds element by element") {
    float a[] = {1.5f, -2.0f, 1e30f, 0.1f};
    float b[] = {2.5f, 2.0f, 1e30f, 0.2f};
    float c[4] = {};
    vector_add_reference(a, b, c, 4);
    CHECK(c[0] == 4.0f);
    CHECK(c[1] == 0.0f);
    CHECK(c[2] == 2e30f);
    CHECK(c[3] == 0.1f + 0.2f);
}
