// Lab 10: the tolerance of a product check tells a correct float result from a wrong one.
#include <doctest/doctest.h>

#include <vector>

#include "labs/10-matmul-shared/reference.h"
#include "product_fixture.h"

using namespace cudalabs;

TEST_CASE("a float product passes its tolerance; a dropped term or a swapped index fails") {
    const GemmDims g{33, 17, 65};
    const auto [a, b, exact] = random_product<float>(g, 7);
    // A float computation in a different order (p descending), as a GPU might sum.
    std::vector<float> got(g.m * g.n);
    for (int i = 0; i < g.m; ++i)
        for (int j = 0; j < g.n; ++j) {
            float s = 0;
            for (int p = g.k - 1; p >= 0; --p) s += a[i * g.k + p] * b[p * g.n + j];
            got[i * g.n + j] = s;
        }
    const Tolerance tol = product_tolerance(g.k, kFloatRoundoff);
    CHECK(check_values(got.data(), exact.data(), got.size(), tol).ok());

    std::vector<float> dropped = got;  // the last tile's term missing at one element
    dropped[5 * g.n + 3] -= a[5 * g.k + 64] * b[64 * g.n + 3];
    CHECK_FALSE(check_values(dropped.data(), exact.data(), got.size(), tol).ok());

    std::vector<float> swapped = got;  // C[i][j] written where C[j][i] belongs
    std::swap(swapped[1 * g.n + 2], swapped[2 * g.n + 1]);
    CHECK_FALSE(check_values(swapped.data(), exact.data(), got.size(), tol).ok());
}

TEST_CASE("double needs the double tolerance: float rounding fails it") {
    const GemmDims g{8, 8, 300};
    const auto [a, b, exact] = random_product<double>(g, 9);
    std::vector<float> as_float(exact.begin(), exact.end());
    CHECK(check_values(exact.data(), exact.data(), exact.size(), product_tolerance(g.k, kDoubleRoundoff)).ok());
    CHECK_FALSE(check_values(as_float.data(), exact.data(), exact.size(), product_tolerance(g.k, kDoubleRoundoff)).ok());
    // Against a GPU result the allowance doubles.
    CHECK(product_tolerance(g.k, kFloatRoundoff, true).rel == doctest::Approx(2 * product_tolerance(g.k, kFloatRoundoff).rel));
}
