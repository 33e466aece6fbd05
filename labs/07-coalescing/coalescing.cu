// Lab 07 -- coalescing, alignment, AoS and SoA. Your work goes in this file: complete every
// TODO(lab07).
// Build and run:   make lab07 && ./lab07       (./lab07 --bench for the large sizes)
// Every kernel does one point (or one float) per thread, 256 threads per block, with the
// `if (i < n)` guard. Read the table the program prints first: it says how many 32-byte
// memory sectors a warp touches for each access pattern.
#include "coalescing.h"

// ---------------------------------------------------------------------------------------------
// Part 1: array of structures. Thread i reads in[i] and writes out[i]; with a 12-byte vec3 the
// warp's reads of .x are 12 bytes apart, so one load instruction spans 384 bytes to use 128.

// handout:begin aos
void transform_aos(const vec3* in, vec3* out, int n, cudaStream_t stream) {
    // TODO(lab07) aos (about 8 lines): write a kernel above: for i < n, vec3 p = in[i]; out[i] = {kScale * p.x +
    // kShiftX, kScale * p.y + kShiftY, kScale * p.z + kShiftZ}; launch it here on `stream`
    // ((n + 255) / 256 blocks of 256 threads), then CHECK_LAUNCH().
}
// handout:end aos

// handout:begin aos16
void transform_aos16(const vec3a* in, vec3a* out, int n, cudaStream_t stream) {
    // TODO(lab07) aos16 (about 8 lines): the same kernel on the 16-byte aligned vec3a, launched the same way.
}
// handout:end aos16

// ---------------------------------------------------------------------------------------------
// Part 2: structure of arrays. The x of all points, then all y, then all z: a warp's reads of x
// are 32 consecutive floats, one 128-byte line.

// handout:begin soa
void transform_soa(const float* in_x, const float* in_y, const float* in_z, float* out_x,
                   float* out_y, float* out_z, int n, cudaStream_t stream) {
    // TODO(lab07) soa (about 10 lines): a kernel that computes out_x[i] = kScale * in_x[i] + kShiftX, and the
    // same for y and z; launch it here.
}
// handout:end soa

// ---------------------------------------------------------------------------------------------
// Part 3: two access patterns that break coalescing on one array of floats.

// handout:begin strided
void scale_strided(const float* in, float* out, int n, cudaStream_t stream) {
    // TODO(lab07) strided (about 6 lines): a kernel with out[i] = kScale * in[(size_t)i * kStride] + kShiftX
    // (size_t: i * kStride may not fit in an int); launch it here.
}
// handout:end strided

// handout:begin offset
void scale_offset(const float* in, float* out, int n, cudaStream_t stream) {
    // TODO(lab07) offset (about 6 lines): a kernel with out[i] = kScale * in[i + kOffset] + kShiftX; launch it.
}
// handout:end offset
