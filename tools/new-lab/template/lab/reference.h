// Lab @NN@'s CPU reference. Host-only: unit-tested with g++.
#pragma once
#include <cstddef>

// y[i] = a x[i] in float, as the GPU computes it (one correctly rounded multiplication).
inline void @TOPIC@_reference(float a, const float* x, float* y, size_t n) {
    for (size_t i = 0; i < n; ++i) y[i] = a * x[i];
}
