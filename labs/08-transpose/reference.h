// Lab 08's CPU reference and the sizes it accepts. Host-only: unit-tested with g++.
#pragma once
#include <climits>
#include <cstddef>
#include <string>

#include "shape.h"

// out (cols x rows) = transpose of in (rows x cols), both row-major.
template <class T>
void transpose_reference(const T* in, T* out, size_t rows, size_t cols) {
    for (size_t r = 0; r < rows; ++r)
        for (size_t c = 0; c < cols; ++c) out[c * rows + r] = in[r * cols + c];
}

// A size of the lab: "N" (N x N) or "RxC", with at most INT_MAX elements (the kernels index
// with int) and at most max_rows rows (kMaxTransposeRows in transpose.h: the grid's y limit).
// Throws UsageError.
inline cudalabs::Matrix transpose_size(const cudalabs::Dims& d, long long max_rows) {
    using cudalabs::UsageError;
    const cudalabs::Matrix m = cudalabs::Matrix::parse(d, "N or RxC");
    if (m.cols > INT_MAX / m.rows)  // rows * cols > INT_MAX, without overflowing
        throw UsageError("size '" + cudalabs::format_dims(d) +
                         "' is too large: at most 2147483647 elements (the kernels index with int)");
    if (m.rows > max_rows)
        throw UsageError("size '" + cudalabs::format_dims(d) + "' has too many rows: at most " +
                         std::to_string(max_rows) + " (the grid's y limit)");
    return m;
}
