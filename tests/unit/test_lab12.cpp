// Lab 12 (and every large product): the sampled check of a result computed on the GPU.
#include <doctest/doctest.h>

#include <algorithm>
#include <set>
#include <vector>

#include "labs/12-matmul-fast/reference.h"
#include "product_fixture.h"

using namespace cudalabs;

TEST_CASE("sample_positions covers corners and centre, stays in range, never repeats") {
    const int rows = 37, cols = 53;
    std::vector<size_t> pos = sample_positions(rows, cols, 100, 5);
    CHECK(pos.size() >= 7);
    CHECK(pos.size() <= 107);
    std::set<size_t> unique(pos.begin(), pos.end());
    CHECK(unique.size() == pos.size());
    for (size_t p : pos) CHECK(p < static_cast<size_t>(rows) * cols);
    CHECK(std::count(pos.begin(), pos.end(), 0u) == 1);
    CHECK(std::count(pos.begin(), pos.end(), static_cast<size_t>(rows) * cols - 1) == 1);
    CHECK(std::count(pos.begin(), pos.end(), static_cast<size_t>(cols) - 1) == 1);
    CHECK(sample_positions(rows, cols, 100, 5) == pos);  // seeded: the same every time
    CHECK(sample_positions(1, 1, 100, 5).size() == 1);   // 1 x 1: one element, once
}

TEST_CASE("sample_product finds a wrong element at a sampled position") {
    const GemmDims g{40, 30, 20};
    const auto [a, b, exact] = random_product<float>(g, 1);
    std::vector<float> c(exact.begin(), exact.end());
    const std::vector<size_t> pos = sample_positions(g.m, g.n, 64, 1);
    std::vector<float> got;
    std::vector<double> want;
    const Tolerance tol = product_tolerance(g.k, kFloatRoundoff);
    sample_product(a.data(), b.data(), g, false, c.data(), pos, got, want);
    CHECK(got.size() == pos.size());
    CHECK(check_values(got.data(), want.data(), got.size(), tol).ok());
    c[pos.back()] += 0.5f;  // a wrong element where the check looks
    sample_product(a.data(), b.data(), g, false, c.data(), pos, got, want);
    CHECK_FALSE(check_values(got.data(), want.data(), got.size(), tol).ok());
}
