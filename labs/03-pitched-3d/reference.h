// Lab 03's CPU references and 3D pitch arithmetic. Host-only: unit-tested with g++.
#pragma once
#include <cstddef>

// out = alpha * in, rounded once to float.
inline void scale_reference(const float* in, float* out, size_t count, float alpha) {
    for (size_t i = 0; i < count; ++i) out[i] = alpha * in[i];
}

inline size_t clamp_index(long long i, size_t extent) {
    return i < 0 ? 0 : static_cast<size_t>(i) >= extent ? extent - 1 : static_cast<size_t>(i);
}

// FP operations per element, for the roofline: scale is one multiply; the stencil sums six
// neighbours (5 adds), then center * v + side * sum (2 multiplies, 1 add).
constexpr double kScaleFlops = 1;
constexpr double kStencil7Flops = 8;

// The 7-point stencil on a packed volume (x fastest), neighbours clamped to the volume, in
// double precision and rounded once.
inline void stencil7_reference(const float* in, float* out, size_t width, size_t height,
                               size_t depth, float center, float side) {
    auto at = [&](long long z, long long y, long long x) {
        return static_cast<double>(in[(clamp_index(z, depth) * height + clamp_index(y, height)) * width +
                                      clamp_index(x, width)]);
    };
    for (size_t z = 0; z < depth; ++z)
        for (size_t y = 0; y < height; ++y)
            for (size_t x = 0; x < width; ++x) {
                const long long zi = static_cast<long long>(z), yi = static_cast<long long>(y),
                                xi = static_cast<long long>(x);
                double sides = at(zi, yi, xi - 1) + at(zi, yi, xi + 1) + at(zi, yi - 1, xi) +
                               at(zi, yi + 1, xi) + at(zi - 1, yi, xi) + at(zi + 1, yi, xi);
                out[(z * height + y) * width + x] =
                    static_cast<float>(static_cast<double>(center) * at(zi, yi, xi) +
                                       static_cast<double>(side) * sides);
            }
}

// Byte offset of element (z, y, x) of `elem_size`-byte elements in a cudaMalloc3D volume:
// slices are pitch * height bytes apart (the slice pitch), rows pitch bytes apart.
inline size_t volume_offset(size_t z, size_t y, size_t x, size_t pitch, size_t height,
                            size_t elem_size) {
    const size_t slice_pitch = pitch * height;
    return z * slice_pitch + y * pitch + x * elem_size;
}

// Counts bytes in the row padding (at or past width_bytes in each of `rows` rows of `pitch`
// bytes) that differ from `untouched`: a kernel without the x guard writes there unseen.
inline size_t written_padding_bytes_3d(const unsigned char* data, size_t width_bytes,
                                       size_t pitch, size_t rows, unsigned char untouched) {
    size_t count = 0;
    for (size_t r = 0; r < rows; ++r)
        for (size_t b = width_bytes; b < pitch; ++b)
            if (data[r * pitch + b] != untouched) ++count;
    return count;
}
