// Lab 07 -- coalescing, alignment, AoS and SoA: reference solution.
#include "coalescing.h"

namespace {
constexpr int kThreads = 256;
int blocks_for(int n) { return (n + kThreads - 1) / kThreads; }
}  // namespace

// ---------------------------------------------------------------------------------------------
// Part 1: array of structures.

// handout:begin aos
__global__ void transform_aos_kernel(const vec3* __restrict__ in, vec3* __restrict__ out, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const vec3 p = in[i];  // three 4-byte loads, 12 bytes apart across the warp
    out[i] = {kScale * p.x + kShiftX, kScale * p.y + kShiftY, kScale * p.z + kShiftZ};
}

void transform_aos(const vec3* in, vec3* out, int n, cudaStream_t stream) {
    transform_aos_kernel<<<blocks_for(n), kThreads, 0, stream>>>(in, out, n);
    CHECK_LAUNCH();
}
// handout:end aos

// handout:begin aos16
__global__ void transform_aos16_kernel(const vec3a* __restrict__ in, vec3a* __restrict__ out, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const vec3a p = in[i];  // 16-byte aligned: one wide load (the hole after z travels too)
    vec3a q;
    q.x = kScale * p.x + kShiftX;
    q.y = kScale * p.y + kShiftY;
    q.z = kScale * p.z + kShiftZ;
    out[i] = q;
}

void transform_aos16(const vec3a* in, vec3a* out, int n, cudaStream_t stream) {
    transform_aos16_kernel<<<blocks_for(n), kThreads, 0, stream>>>(in, out, n);
    CHECK_LAUNCH();
}
// handout:end aos16

// ---------------------------------------------------------------------------------------------
// Part 2: structure of arrays.

// handout:begin soa
__global__ void transform_soa_kernel(const float* __restrict__ in_x, const float* __restrict__ in_y,
                                     const float* __restrict__ in_z, float* __restrict__ out_x,
                                     float* __restrict__ out_y, float* __restrict__ out_z, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    // Each of the six accesses is 32 consecutive floats across the warp: one 128-byte line.
    out_x[i] = kScale * in_x[i] + kShiftX;
    out_y[i] = kScale * in_y[i] + kShiftY;
    out_z[i] = kScale * in_z[i] + kShiftZ;
}

void transform_soa(const float* in_x, const float* in_y, const float* in_z, float* out_x,
                   float* out_y, float* out_z, int n, cudaStream_t stream) {
    transform_soa_kernel<<<blocks_for(n), kThreads, 0, stream>>>(in_x, in_y, in_z, out_x, out_y,
                                                                out_z, n);
    CHECK_LAUNCH();
}
// handout:end soa

// ---------------------------------------------------------------------------------------------
// Part 3: strided and misaligned reads.

// handout:begin strided
__global__ void scale_strided_kernel(const float* __restrict__ in, float* __restrict__ out, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    // 32 bytes apart: every lane's float sits in its own sector, 7/8 of each sector is wasted.
    out[i] = kScale * in[static_cast<size_t>(i) * kStride] + kShiftX;
}

void scale_strided(const float* in, float* out, int n, cudaStream_t stream) {
    scale_strided_kernel<<<blocks_for(n), kThreads, 0, stream>>>(in, out, n);
    CHECK_LAUNCH();
}
// handout:end strided

// handout:begin offset
__global__ void scale_offset_kernel(const float* __restrict__ in, float* __restrict__ out, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    out[i] = kScale * in[i + kOffset] + kShiftX;  // each warp's 128 bytes straddle two lines
}

void scale_offset(const float* in, float* out, int n, cudaStream_t stream) {
    scale_offset_kernel<<<blocks_for(n), kThreads, 0, stream>>>(in, out, n);
    CHECK_LAUNCH();
}
// handout:end offset
