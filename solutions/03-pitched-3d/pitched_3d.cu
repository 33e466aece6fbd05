// Lab 03 -- 3D arrays with a pitch: reference solution.
#include <cstdint>

#include "pitched_3d.h"

namespace {
// Grids are capped at 65535 blocks in y and z; larger volumes loop in the kernels.
dim3 volume_grid(dim3 block, int width, int height, int depth) {
    auto blocks = [](int n, unsigned b, unsigned cap) {
        const unsigned need = (static_cast<unsigned>(n) + b - 1) / b;
        return need < cap ? need : cap;
    };
    return dim3(blocks(width, block.x, 0x7fffffffu), blocks(height, block.y, 65535u),
                blocks(depth, block.z, 65535u));
}

// Row y of slice z of a pitched volume.
__device__ __forceinline__ float* row_of(cudaPitchedPtr p, int height, int z, int y) {
    const size_t slice_pitch = p.pitch * static_cast<size_t>(height);
    return reinterpret_cast<float*>(static_cast<char*>(p.ptr) + z * slice_pitch + y * p.pitch);
}
}  // namespace

// ---------------------------------------------------------------------------------------------
// Part 1: an elementwise kernel on a cudaMalloc3D volume.

// handout:begin scale
__global__ void scale_kernel(cudaPitchedPtr in, cudaPitchedPtr out, int width, int height,
                             int depth, float alpha) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    if (x >= width) return;  // the row's padding is not ours to touch
    for (int z = blockIdx.z * blockDim.z + threadIdx.z; z < depth; z += gridDim.z * blockDim.z)
        for (int y = blockIdx.y * blockDim.y + threadIdx.y; y < height; y += gridDim.y * blockDim.y)
            row_of(out, height, z, y)[x] = alpha * row_of(in, height, z, y)[x];
}

// The fast path: cudaMalloc3D rows start 16-byte aligned (the pitch is a multiple of the
// alignment), so each thread moves four floats at once; a row's last width % 4 go one by one.
__global__ void scale_kernel4(cudaPitchedPtr in, cudaPitchedPtr out, int width, int height,
                              int depth, float alpha) {
    const int x = 4 * (blockIdx.x * blockDim.x + threadIdx.x);
    if (x >= width) return;
    for (int z = blockIdx.z * blockDim.z + threadIdx.z; z < depth; z += gridDim.z * blockDim.z)
        for (int y = blockIdx.y * blockDim.y + threadIdx.y; y < height; y += gridDim.y * blockDim.y) {
            const float* src = row_of(in, height, z, y);
            float* dst = row_of(out, height, z, y);
            if (x + 3 < width) {
                const float4 v = *reinterpret_cast<const float4*>(src + x);
                *reinterpret_cast<float4*>(dst + x) =
                    make_float4(alpha * v.x, alpha * v.y, alpha * v.z, alpha * v.w);
            } else {
                for (int k = x; k < width; ++k) dst[k] = alpha * src[k];
            }
        }
}

void scale_volume(cudaPitchedPtr in, cudaPitchedPtr out, int width, int height, int depth,
                  float alpha, cudaStream_t stream) {
    const dim3 block(32, 8, 1);  // a warp works along one row
    const bool aligned = in.pitch % 16 == 0 && out.pitch % 16 == 0 &&
                         ((reinterpret_cast<uintptr_t>(in.ptr) | reinterpret_cast<uintptr_t>(out.ptr)) % 16) == 0;
    if (aligned)
        scale_kernel4<<<volume_grid(block, (width + 3) / 4, height, depth), block, 0, stream>>>(
            in, out, width, height, depth, alpha);
    else
        scale_kernel<<<volume_grid(block, width, height, depth), block, 0, stream>>>(
            in, out, width, height, depth, alpha);
    CHECK_LAUNCH();
}
// handout:end scale

// ---------------------------------------------------------------------------------------------
// Part 2: the 7-point stencil with clamped neighbours.

// handout:begin stencil
__device__ __forceinline__ float clamped(cudaPitchedPtr p, int width, int height, int depth,
                                         int z, int y, int x) {
    z = min(max(z, 0), depth - 1);
    y = min(max(y, 0), height - 1);
    x = min(max(x, 0), width - 1);
    return row_of(p, height, z, y)[x];
}

__global__ void stencil7_kernel(cudaPitchedPtr in, cudaPitchedPtr out, int width, int height,
                                int depth) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    if (x >= width) return;
    for (int z = blockIdx.z * blockDim.z + threadIdx.z; z < depth; z += gridDim.z * blockDim.z)
        for (int y = blockIdx.y * blockDim.y + threadIdx.y; y < height; y += gridDim.y * blockDim.y) {
            // Neighbours in x and y are mostly read by other threads of the block too: the
            // caches turn the seven reads into close to one trip to memory per element.
            const float sides = clamped(in, width, height, depth, z, y, x - 1) +
                                clamped(in, width, height, depth, z, y, x + 1) +
                                clamped(in, width, height, depth, z, y - 1, x) +
                                clamped(in, width, height, depth, z, y + 1, x) +
                                clamped(in, width, height, depth, z - 1, y, x) +
                                clamped(in, width, height, depth, z + 1, y, x);
            row_of(out, height, z, y)[x] = kCenter * row_of(in, height, z, y)[x] + kSide * sides;
        }
}

void stencil7_volume(cudaPitchedPtr in, cudaPitchedPtr out, int width, int height, int depth,
                     cudaStream_t stream) {
    const dim3 block(32, 8, 1);
    stencil7_kernel<<<volume_grid(block, width, height, depth), block, 0, stream>>>(
        in, out, width, height, depth);
    CHECK_LAUNCH();
}
// handout:end stencil

// ---------------------------------------------------------------------------------------------
// Part 3: the host round trip with cudaMalloc3D and cudaMemcpy3D.

// handout:begin host
void scale_volume_host(const float* in, float* out, int width, int height, int depth, float alpha) {
    const size_t row_bytes = static_cast<size_t>(width) * sizeof(float);
    const cudaExtent extent = make_cudaExtent(row_bytes, height, depth);  // width in bytes
    cudaPitchedPtr din = {}, dout = {};
    CUDA_CHECK(cudaMalloc3D(&din, extent));
    CUDA_CHECK(cudaMalloc3D(&dout, extent));

    cudaMemcpy3DParms to_device = {};
    to_device.srcPtr = make_cudaPitchedPtr(const_cast<float*>(in), row_bytes, width, height);
    to_device.dstPtr = din;
    to_device.extent = extent;
    to_device.kind = cudaMemcpyHostToDevice;
    CUDA_CHECK(cudaMemcpy3D(&to_device));

    scale_volume(din, dout, width, height, depth, alpha, 0);

    cudaMemcpy3DParms to_host = {};
    to_host.srcPtr = dout;
    to_host.dstPtr = make_cudaPitchedPtr(out, row_bytes, width, height);
    to_host.extent = extent;
    to_host.kind = cudaMemcpyDeviceToHost;
    CUDA_CHECK(cudaMemcpy3D(&to_host));  // waits for the kernel
    CUDA_CHECK(cudaFree(din.ptr));
    CUDA_CHECK(cudaFree(dout.ptr));
}
// handout:end host
