// Lab 07 -- coalescing, alignment, AoS and SoA: the interface between your file (coalescing.cu)
// and the lab's driver. A signature that does not match is a compile error here. Do not edit.
//
// The computation, for every point p of n: p' = kScale * p + (kShiftX, kShiftY, kShiftZ).
#pragma once
#include <cuda_runtime.h>

#include "check.h"  // CUDA_CHECK(...) and CHECK_LAUNCH() for your CUDA calls

constexpr float kScale = 1.25f;
constexpr float kShiftX = 0.5f, kShiftY = -0.25f, kShiftZ = 2.0f;
constexpr int kStride = 8;  // elements between two consecutive reads of the strided variant
constexpr int kOffset = 1;  // elements by which the misaligned variant's reads are shifted

// An array of structures: 12 bytes per point, so only every fourth point starts on a 16-byte
// boundary.
struct vec3 {
    float x, y, z;
};
// The same with 16-byte alignment: a hidden 4-byte hole after z, one 16-byte load per point.
struct __align__(16) vec3a {
    float x, y, z;
};
static_assert(sizeof(vec3) == 12 && sizeof(vec3a) == 16, "unexpected struct sizes");

// The three layouts of the same computation. Enqueue on `stream`, do not synchronise. n >= 1.
void transform_aos(const vec3* in, vec3* out, int n, cudaStream_t stream);
void transform_aos16(const vec3a* in, vec3a* out, int n, cudaStream_t stream);
void transform_soa(const float* in_x, const float* in_y, const float* in_z, float* out_x,
                   float* out_y, float* out_z, int n, cudaStream_t stream);

// One component: out[i] = kScale * in[i * kStride] + kShiftX (`in` holds n * kStride floats).
void scale_strided(const float* in, float* out, int n, cudaStream_t stream);
// One component: out[i] = kScale * in[i + kOffset] + kShiftX (`in` holds n + kOffset floats).
void scale_offset(const float* in, float* out, int n, cudaStream_t stream);
