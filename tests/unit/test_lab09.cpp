// Lab 09 and the shared matrix helpers of labs/products/matrix_product.h (labs 09 to 12).
#include <doctest/doctest.h>

#include <vector>

#include "labs/09-matmul-global/reference.h"
#include "product_fixture.h"

using namespace cudalabs;

TEST_CASE("GemmDims::parse: N is square, MxNxK is general, other shapes are refused") {
    GemmDims g = GemmDims::parse({5});
    CHECK(g.m == 5);
    CHECK(g.n == 5);
    CHECK(g.k == 5);
    g = GemmDims::parse({2, 3, 4});
    CHECK(g.m == 2);
    CHECK(g.n == 3);
    CHECK(g.k == 4);
    CHECK_THROWS_AS(GemmDims::parse({2, 3}), UsageError);
    CHECK_THROWS_AS(GemmDims::parse({50000, 50000, 1}), UsageError);    // C over INT_MAX elements
    CHECK_THROWS_AS(GemmDims::parse({1, 1, 3000000000LL}), UsageError); // A over INT_MAX
    CHECK_THROWS_AS(GemmDims::parse({2000000, 1, 1}), UsageError);      // past the grid's y limit
    CHECK(gemm_flops({2, 3, 4}) == 48.0);
    CHECK(gemm_bytes({2, 3, 4}, 4) == 4.0 * (8 + 12 + 6));
    // The roofline's traffic: A, B and C; A once where B is A (A * A^T, m = n).
    CHECK(product_roofline_bytes({2, 3, 4}, 4, false) == 4.0 * (8 + 12 + 6));
    CHECK(product_roofline_bytes({3, 3, 5}, 8, true) == 8.0 * (15 + 9));
}

TEST_CASE("GemmDims::parse refuses extents whose products would overflow") {
    // K = 2^62 with M = N = 2: M * K and K * N overflow a long long, M * N does not.
    CHECK_THROWS_AS(GemmDims::parse({2, 2, 4611686018427387904LL}), UsageError);
    CHECK(GemmDims::parse({1, 1, 2147483647}).k == 2147483647);
    CHECK(GemmDims::parse({46340, 46340, 46340}).m == 46340);
}

TEST_CASE("lab 09 sizes: the struct variants' padded rows must fit int indices too") {
    const GemmDims g = matmul_global_size({33, 17, 65});
    CHECK(g.m == 33);
    CHECK(g.n == 17);
    CHECK(g.k == 65);
    CHECK(matmul_global_size({2048}).k == 2048);
    CHECK_THROWS_WITH_AS(matmul_global_size({2, 3}),
                         "size '2x3' does not fit this lab: expected N (square) or MxNxK (C is M x N, the inner dimension K)",
                         UsageError);
    // 46340^2 fits in an int; 46340 x (46340 + 3) does not.
    CHECK_THROWS_WITH_AS(matmul_global_size({46340}),
                         "size '46340' is too large: with the struct variants' padded rows (3 elements) a matrix must "
                         "stay within 2147483647 elements",
                         UsageError);
    CHECK_THROWS_AS(matmul_global_size({1, 1, 2147483646}), UsageError);
}

TEST_CASE("product_reference multiplies row-major matrices, with B plain or transposed") {
    // A 2 x 3, B 3 x 2
    const float a[] = {1, 2, 3, 4, 5, 6};
    const float b[] = {7, 8, 9, 10, 11, 12};
    double c[4];
    product_reference(a, b, {2, 2, 3}, false, c);
    CHECK(c[0] == 58);   // 1*7 + 2*9 + 3*11
    CHECK(c[1] == 64);   // 1*8 + 2*10 + 3*12
    CHECK(c[2] == 139);
    CHECK(c[3] == 154);
    // The same B stored transposed (2 x 3): the same product.
    const float bt[] = {7, 9, 11, 8, 10, 12};
    double ct[4];
    product_reference(a, bt, {2, 2, 3}, true, ct);
    for (int i = 0; i < 4; ++i) CHECK(ct[i] == c[i]);
    CHECK(product_at(a, b, {2, 2, 3}, false, 1, 0) == 139);
}

TEST_CASE("product_reference agrees with product_at on random non-square data") {
    const GemmDims g{5, 7, 11};
    const auto [a, b, c] = random_product<float>(g, 3);
    for (int i = 0; i < g.m; ++i)
        for (int j = 0; j < g.n; ++j) CHECK(c[i * g.n + j] == doctest::Approx(product_at(a.data(), b.data(), g, false, i, j)));
}

TEST_CASE("the CPU reference is used for small products only") {
    CHECK(use_cpu_reference({300, 211, 500}));
    CHECK_FALSE(use_cpu_reference({1025, 1000, 777}));
    CHECK_FALSE(use_cpu_reference({2048, 2048, 2048}));
}
