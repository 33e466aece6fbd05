// Lab 09's CPU reference: the double-precision product of labs/products/matrix_product.h (shared
// by labs 09 to 12, unit-tested there), and the sizes the lab accepts. Host-only.
#pragma once
#include <climits>
#include <string>

#include "../products/matrix_product.h"

// The struct variants see padded rows: each matrix's stride is its width plus kRowPadding.
constexpr int kRowPadding = 3;

// A size of the lab: a product's (GemmDims::parse) whose matrices, with their rows padded for
// the struct variants, still fit the kernels' int indices. Throws UsageError.
inline cudalabs::GemmDims matmul_global_size(const cudalabs::Dims& d) {
    const cudalabs::GemmDims g = cudalabs::GemmDims::parse(d);
    const long long pad = kRowPadding;
    if (static_cast<long long>(g.m) * (g.k + pad) > INT_MAX || static_cast<long long>(g.k) * (g.n + pad) > INT_MAX ||
        static_cast<long long>(g.m) * (g.n + pad) > INT_MAX)
        throw cudalabs::UsageError("size '" + cudalabs::format_dims(d) + "' is too large: with the struct variants' padded rows (" +
                                   std::to_string(kRowPadding) + " elements) a matrix must stay within 2147483647 elements");
    return g;
}
