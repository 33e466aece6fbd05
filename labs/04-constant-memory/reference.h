// Lab 04's CPU reference, the sizes it accepts and the constant-memory budget. Host-only:
// unit-tested with g++.
#pragma once
#include <climits>
#include <cmath>
#include <cstddef>

#include "shape.h"

// Coefficients per polynomial when a size gives only N.
constexpr long long kDefaultTerms = 16;

// A size of the lab: "N" (N points, kDefaultTerms coefficients) or "NxT" (T coefficients per
// polynomial). parse throws UsageError for other shapes and for N beyond int range; the limit on
// T (what constant memory holds) is the driver's check.
struct Polynomials {
    long long points = 0, terms = kDefaultTerms;
    static Polynomials parse(const cudalabs::Dims& d);
};

inline Polynomials Polynomials::parse(const cudalabs::Dims& d) {
    cudalabs::require_extents(d, 1, 2, "N or NxT (for example 1000000x16)");
    cudalabs::require_at_most({d[0]}, INT_MAX, "N must be at most 2147483647 (the kernels index with int)");
    return {d[0], d.size() > 1 ? d[1] : kDefaultTerms};
}

// Horner's rule in double, rounded once: y[i] = sum_k c[set(i) * terms + k] x[i]^k, where
// set(i) = i % sets (sets = 1: every point uses the first set).
inline void poly_reference(const float* coefficients, int terms, int sets, const float* x,
                           float* y, size_t n) {
    for (size_t i = 0; i < n; ++i) {
        const float* c = coefficients + (i % static_cast<size_t>(sets)) * terms;
        double acc = c[terms - 1];
        for (int k = terms - 2; k >= 0; --k) acc = acc * x[i] + c[k];
        y[i] = static_cast<float>(acc);
    }
}

// The roofline's counts of one evaluation of n points with `sets` sets of T coefficients:
// Horner's rule takes T - 1 multiply-adds (2 FP operations each) per point; every x is read and
// every y written once, and the coefficients the points use are read once.
inline double horner_flops(size_t n, int terms) { return 2.0 * (terms - 1) * static_cast<double>(n); }
inline double poly_bytes(size_t n, int terms, int sets) {
    return sizeof(float) * (2.0 * static_cast<double>(n) + static_cast<double>(terms) * sets);
}

// A bound on the rounding error of Horner's rule in float for |x| <= 1: 2 T u sum|c_k| (the
// classic gamma_2T bound), taken over the sets the points use.
inline double horner_error_bound(const float* coefficients, int terms, int sets,
                                 double unit_roundoff) {
    double worst = 0;
    for (int s = 0; s < sets; ++s) {
        double sum = 0;
        for (int k = 0; k < terms; ++k) sum += std::fabs(coefficients[s * terms + k]);
        if (sum > worst) worst = sum;
    }
    return 2.0 * terms * unit_roundoff * worst;
}

// Bytes of constant memory that `sets` sets of `terms` float coefficients need.
inline long long constant_bytes_needed(long long terms, long long sets) {
    return terms * sets * static_cast<long long>(sizeof(float));
}
