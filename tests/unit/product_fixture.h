// The inputs of a product test (labs 09 to 12): A (m x k) and B (k x n) of seeded random values,
// and their exact product from the double-precision CPU reference.
#pragma once
#include <cstdint>
#include <vector>

#include "labs/products/matrix_product.h"

template <class T>
struct RandomProduct {
    std::vector<T> a, b;
    std::vector<double> exact;  // C = A * B, m x n
};

template <class T>
RandomProduct<T> random_product(const cudalabs::GemmDims& g, uint64_t seed) {
    RandomProduct<T> p{std::vector<T>(g.m * g.k), std::vector<T>(g.k * g.n), std::vector<double>(g.m * g.n)};
    cudalabs::fill_uniform(p.a.data(), p.a.size(), seed, 1);
    cudalabs::fill_uniform(p.b.data(), p.b.size(), seed, 2);
    cudalabs::product_reference(p.a.data(), p.b.data(), g, false, p.exact.data());
    return p;
}
