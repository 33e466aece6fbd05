#include <doctest/doctest.h>

#include <vector>

#include "labs/04-constant-memory/reference.h"

namespace {
// poly_reference's values at the points `x`, each with the set of `terms` coefficients it uses.
std::vector<float> horner(const std::vector<float>& c, int terms, int sets, const std::vector<float>& x) {
    std::vector<float> y(x.size());
    poly_reference(c.data(), terms, sets, x.data(), y.data(), x.size());
    return y;
}
}  // namespace

TEST_CASE("lab 04 Horner reference evaluates c0 + c1 x + c2 x^2") {
    const std::vector<float> x = {0.0f, 1.0f, 0.5f, -1.0f};
    CHECK(horner({1.0f, 2.0f, 3.0f}, 3, 1, x) == std::vector<float>{1.0f, 6.0f, 2.75f, 2.0f});
    // One coefficient: a constant.
    CHECK(horner({-0.5f}, 1, 1, x) == std::vector<float>(4, -0.5f));
}

TEST_CASE("lab 04 divergent reference: point i uses set i % sets") {
    // Two sets of 2 coefficients: set 0 = 1 + 0 x, set 1 = 0 + 1 x.
    CHECK(horner({1.0f, 0.0f, 0.0f, 1.0f}, 2, 2, {0.25f, 0.25f, 0.75f, 0.75f}) ==
          std::vector<float>{1.0f, 0.25f, 1.0f, 0.75f});
}

TEST_CASE("lab 04 error bound grows with the terms and the largest set") {
    const float c[] = {1.0f, -1.0f, 0.5f, 0.5f, 0.5f, 4.0f};
    const double u = 5.96e-8;
    CHECK(horner_error_bound(c, 3, 1, u) == doctest::Approx(2 * 3 * u * 2.5));
    CHECK(horner_error_bound(c, 3, 2, u) == doctest::Approx(2 * 3 * u * 5.0));
}

TEST_CASE("lab 04 constant memory budget: 32 sets of 512 floats fill 64 KB exactly") {
    CHECK(constant_bytes_needed(512, 32) == 65536);
    CHECK(constant_bytes_needed(513, 32) > 65536);
    CHECK(constant_bytes_needed(16, 32) == 2048);
}

TEST_CASE("lab 04 sizes: N points with 16 coefficients, or NxT") {
    using cudalabs::UsageError;
    Polynomials p = Polynomials::parse({1000});
    CHECK(p.points == 1000);
    CHECK(p.terms == 16);
    p = Polynomials::parse({7, 1});
    CHECK(p.points == 7);
    CHECK(p.terms == 1);
    // T is not limited here: what constant memory holds is the driver's check.
    CHECK(Polynomials::parse({10, 3000000000LL}).terms == 3000000000LL);
    CHECK_THROWS_WITH_AS(Polynomials::parse({1, 2, 3}),
                         "size '1x2x3' does not fit this lab: expected N or NxT (for example 1000000x16)", UsageError);
    // The message names N alone, whatever T is.
    CHECK_THROWS_WITH_AS(Polynomials::parse({3000000000LL, 3}),
                         "size '3000000000' is too large: N must be at most 2147483647 (the kernels index with int)",
                         UsageError);
}

TEST_CASE("lab 04 roofline counts: T - 1 multiply-adds per point, x and y once, the sets' coefficients once") {
    CHECK(horner_flops(1000, 16) == doctest::Approx(30000));
    CHECK(horner_flops(1000, 1) == 0);  // a constant: no FP operation
    CHECK(poly_bytes(1000, 16, 1) == doctest::Approx(4.0 * (2000 + 16)));
    CHECK(poly_bytes(1000, 16, 32) == doctest::Approx(4.0 * (2000 + 512)));
}
