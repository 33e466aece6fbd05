// Lab 11: C = A * A^T through the shared reference with B = A read transposed; the sizes it accepts.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "labs/11-matmul-aat/reference.h"

using namespace cudalabs;

TEST_CASE("A * A^T: B = A transposed gives a symmetric result with row norms on the diagonal") {
    const GemmDims g{6, 6, 9};  // A is 6 x 9, C is 6 x 6
    std::vector<float> a(g.m * g.k);
    fill_uniform(a.data(), a.size(), 11, 1);
    std::vector<double> c(g.m * g.m);
    product_reference(a.data(), a.data(), g, true, c.data());
    for (int i = 0; i < g.m; ++i) {
        double norm = 0;
        for (int p = 0; p < g.k; ++p) norm += static_cast<double>(a[i * g.k + p]) * a[i * g.k + p];
        CHECK(c[i * g.m + i] == doctest::Approx(norm));
        for (int j = 0; j < g.m; ++j) CHECK(c[i * g.m + j] == c[j * g.m + i]);
    }
    const float a2[] = {1, 2, 3, 4};  // [[1 2] [3 4]] * its transpose = [[5 11] [11 25]]
    double c2[4];
    product_reference(a2, a2, {2, 2, 2}, true, c2);
    CHECK(c2[0] == 5);
    CHECK(c2[1] == 11);
    CHECK(c2[2] == 11);
    CHECK(c2[3] == 25);
}

TEST_CASE("lab 11 sizes: N or NxK is the product N x N x K") {
    GemmDims g = aat_size({7, 3});
    CHECK(g.m == 7);
    CHECK(g.n == 7);
    CHECK(g.k == 3);
    g = aat_size({5});
    CHECK(g.m == 5);
    CHECK(g.n == 5);
    CHECK(g.k == 5);
    CHECK(aat_size({46340}).m == 46340);
    CHECK(aat_size({1, 2147483647}).k == 2147483647);
    CHECK_THROWS_WITH_AS(aat_size({1, 2, 3}), "size '1x2x3' does not fit this lab: expected N or NxK (A is N x K)", UsageError);
    const std::string too_large = "is too large: N may be at most 1048560 and A and C at most 2147483647 elements each "
                                  "(the kernels index with int)";
    CHECK_THROWS_WITH_AS(aat_size({46341}), ("size '46341' " + too_large).c_str(), UsageError);  // C over INT_MAX
    CHECK_THROWS_WITH_AS(aat_size({1048561, 1}), ("size '1048561x1' " + too_large).c_str(), UsageError);
    CHECK_THROWS_WITH_AS(aat_size({2, 2147483647}), ("size '2x2147483647' " + too_large).c_str(), UsageError);
}
