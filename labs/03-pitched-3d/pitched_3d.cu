// Lab 03 -- 3D arrays with a pitch. Your work goes in this file: complete every TODO(lab03).
// Build and run:   make lab03 && ./lab03
// The driver checks every variant on awkward volumes (depth 1, odd widths, one element) and
// times it.
#include "pitched_3d.h"

// ---------------------------------------------------------------------------------------------
// Part 1: an elementwise kernel on a cudaMalloc3D volume.
// One thread per element, with a 3D grid: blockIdx.z picks the slice. A cudaPitchedPtr gives
// the base pointer and the row pitch in bytes; the slice pitch is pitch * height. Threads past
// the last x, y or z must do nothing (past the last x means writing into a row's padding).

// handout:begin scale
__global__ void scale_kernel(cudaPitchedPtr in, cudaPitchedPtr out, int width, int height,
                             int depth, float alpha) {
    // TODO(lab03) scale (about 6 lines): x, y, z from blockIdx/blockDim/threadIdx; if inside the volume, find
    // the row of `in` and of `out` (base + z * slicePitch + y * pitch, in bytes) and set
    // out[x] = alpha * in[x].
}

void scale_volume(cudaPitchedPtr in, cudaPitchedPtr out, int width, int height, int depth,
                  float alpha, cudaStream_t stream) {
    // TODO(lab03) scale (about 5 lines): launch scale_kernel on `stream` with dim3 blocks of 32x8x1 threads and
    // a dim3 grid of ceil(width/32) x ceil(height/8) x depth blocks, then CHECK_LAUNCH().
    // (gridDim.y and gridDim.z are limited to 65535: larger volumes need a loop in the kernel.)
}
// handout:end scale
//
// Passing needs one element per thread. For the --bench target (0.80 of the copy bandwidth) let
// each thread move four floats with one float4 load and store: cudaMalloc3D rows start 16-byte
// aligned (handle the last width % 4 elements of a row one by one).

// ---------------------------------------------------------------------------------------------
// Part 2: the 7-point stencil. Each output reads its element and its six neighbours; clamp
// every neighbour's index to the volume (x-1 at x = 0 reads x = 0, and so on).

// handout:begin stencil
void stencil7_volume(cudaPitchedPtr in, cudaPitchedPtr out, int width, int height, int depth,
                     cudaStream_t stream) {
    // TODO(lab03) stencil (about 20 lines): write a kernel above (like scale_kernel, with a small device helper
    // that returns in(z, y, x) through the pitches) that computes
    //     out = kCenter * center + kSide * (sum of the six clamped neighbours)
    // and launch it here on `stream`, then CHECK_LAUNCH().
}
// handout:end stencil

// ---------------------------------------------------------------------------------------------
// Part 3: the host round trip with cudaMalloc3D and cudaMemcpy3D.

// handout:begin host
void scale_volume_host(const float* in, float* out, int width, int height, int depth, float alpha) {
    // TODO(lab03) host (about 20 lines): the whole round trip.
    //  1. cudaExtent extent = make_cudaExtent(width * sizeof(float), height, depth) (width in
    //     BYTES); cudaMalloc3D two cudaPitchedPtr volumes with it;
    //  2. describe the packed host volume: make_cudaPitchedPtr((void*)in, width * sizeof(float),
    //     width, height); fill a zeroed cudaMemcpy3DParms (srcPtr, dstPtr, extent, kind =
    //     cudaMemcpyHostToDevice) and call cudaMemcpy3D(&parms);
    //  3. scale_volume(..., 0); then copy the output volume back the same way
    //     (cudaMemcpyDeviceToHost) and cudaFree both .ptr.
}
// handout:end host
