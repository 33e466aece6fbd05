// Lab 01's CPU reference. Host-only: unit-tested with g++.
#pragma once
#include <cstddef>

// c[i] = a[i] + b[i] in float, as the GPU computes it (one correctly rounded addition).
inline void vector_add_reference(const float* a, const float* b, float* c, size_t n) {
    for (size_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
}
