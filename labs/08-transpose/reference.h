// Lab 08's CPU reference. Host-only: unit-tested with g++.
#pragma once
#include <cstddef>

// out (cols x rows) = transpose of in (rows x cols), both row-major.
template <class T>
void transpose_reference(const T* in, T* out, size_t rows, size_t cols) {
    for (size_t r = 0; r < rows; ++r)
        for (size_t c = 0; c < cols; ++c) out[c * rows + r] = in[r * cols + c];
}
