// Lab 02's CPU reference and pitch arithmetic. Host-only: unit-tested with g++.
#pragma once
#include <cstddef>

// c = alpha * a + b, rounded once to float (the GPU fuses the multiply and the add).
inline void add_scaled_reference(const float* a, const float* b, float* c, size_t count,
                                 float alpha) {
    for (size_t i = 0; i < count; ++i)
        c[i] = static_cast<float>(static_cast<double>(alpha) * a[i] + static_cast<double>(b[i]));
}

// Byte offset of element (row, col) in a pitched array of `elem_size`-byte elements: rows are
// `pitch` bytes apart, elements inside a row elem_size bytes apart.
inline size_t pitched_offset(size_t row, size_t col, size_t pitch, size_t elem_size) {
    return row * pitch + col * elem_size;
}

// `value` rounded up to a multiple of `alignment` (alignment >= 1).
inline size_t round_up(size_t value, size_t alignment) {
    return (value + alignment - 1) / alignment * alignment;
}

// Bytes of a pitched allocation that hold no element: (pitch - width_bytes) per row.
inline size_t padding_bytes(size_t width_bytes, size_t pitch, size_t height) {
    return (pitch - width_bytes) * height;
}

// Counts the bytes of a downloaded pitched array (height rows of `pitch` bytes) that lie in the
// padding (at or past width_bytes in their row) and differ from `untouched`: a kernel that
// forgot the column guard writes there, and neither the results nor compute-sanitizer notice.
inline size_t written_padding_bytes(const unsigned char* rows, size_t width_bytes, size_t pitch,
                                    size_t height, unsigned char untouched) {
    size_t count = 0;
    for (size_t r = 0; r < height; ++r)
        for (size_t b = width_bytes; b < pitch; ++b)
            if (rows[r * pitch + b] != untouched) ++count;
    return count;
}
