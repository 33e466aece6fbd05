// Lab 02 -- 2D arrays with a pitch: reference solution.
#include <cstdint>

#include "pitched_2d.h"

// ---------------------------------------------------------------------------------------------
// Part 1: a 2D kernel on a pitched matrix.

// handout:begin pitched
__global__ void add_scaled_kernel(const float* a, const float* b, float* c, size_t pitch,
                                  int width, int height, float alpha) {
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (col >= width) return;  // past the last column: that would be padding
    // The grid's y extent is capped at 65535 blocks, so taller matrices loop over rows.
    for (int row = blockIdx.y * blockDim.y + threadIdx.y; row < height;
         row += gridDim.y * blockDim.y) {
        const size_t offset = static_cast<size_t>(row) * pitch;  // bytes, not elements
        const float* arow = reinterpret_cast<const float*>(reinterpret_cast<const char*>(a) + offset);
        const float* brow = reinterpret_cast<const float*>(reinterpret_cast<const char*>(b) + offset);
        float* crow = reinterpret_cast<float*>(reinterpret_cast<char*>(c) + offset);
        crow[col] = alpha * arow[col] + brow[col];
    }
}

// The fast path: every row of a pitched allocation starts 16-byte aligned, so each thread can
// move four floats with one 16-byte load; the last width % 4 columns of a row go one by one.
__global__ void add_scaled_kernel4(const float* a, const float* b, float* c, size_t pitch,
                                   int width, int height, float alpha) {
    const int col = 4 * (blockIdx.x * blockDim.x + threadIdx.x);
    if (col >= width) return;
    for (int row = blockIdx.y * blockDim.y + threadIdx.y; row < height;
         row += gridDim.y * blockDim.y) {
        const size_t offset = static_cast<size_t>(row) * pitch;
        const float* arow = reinterpret_cast<const float*>(reinterpret_cast<const char*>(a) + offset);
        const float* brow = reinterpret_cast<const float*>(reinterpret_cast<const char*>(b) + offset);
        float* crow = reinterpret_cast<float*>(reinterpret_cast<char*>(c) + offset);
        if (col + 3 < width) {
            const float4 x = *reinterpret_cast<const float4*>(arow + col);
            const float4 y = *reinterpret_cast<const float4*>(brow + col);
            *reinterpret_cast<float4*>(crow + col) =
                make_float4(alpha * x.x + y.x, alpha * x.y + y.y, alpha * x.z + y.z, alpha * x.w + y.w);
        } else {
            for (int k = col; k < width; ++k) crow[k] = alpha * arow[k] + brow[k];
        }
    }
}

void add_scaled_pitched(const float* a, const float* b, float* c, size_t pitch, int width,
                        int height, float alpha, cudaStream_t stream) {
    const dim3 block(32, 8);  // a warp covers consecutive columns of one row
    const unsigned rows_of_blocks = (static_cast<unsigned>(height) + block.y - 1) / block.y;
    const unsigned grid_y = rows_of_blocks < 65535u ? rows_of_blocks : 65535u;
    const bool aligned = pitch % 16 == 0 && ((reinterpret_cast<uintptr_t>(a) |
                         reinterpret_cast<uintptr_t>(b) | reinterpret_cast<uintptr_t>(c)) % 16) == 0;
    if (aligned) {
        const unsigned quads = (static_cast<unsigned>(width) + 3) / 4;
        add_scaled_kernel4<<<dim3((quads + block.x - 1) / block.x, grid_y), block, 0, stream>>>(
            a, b, c, pitch, width, height, alpha);
    } else {  // a packed matrix whose width is not a multiple of 4: rows are not aligned
        add_scaled_kernel<<<dim3((static_cast<unsigned>(width) + block.x - 1) / block.x, grid_y),
                            block, 0, stream>>>(a, b, c, pitch, width, height, alpha);
    }
    CHECK_LAUNCH();
}
// handout:end pitched

// ---------------------------------------------------------------------------------------------
// Part 2: a packed matrix is the special case whose pitch is exactly width * sizeof(float).

// handout:begin packed
void add_scaled_packed(const float* a, const float* b, float* c, int width, int height,
                       float alpha, cudaStream_t stream) {
    add_scaled_pitched(a, b, c, static_cast<size_t>(width) * sizeof(float), width, height, alpha,
                       stream);
}
// handout:end packed

// ---------------------------------------------------------------------------------------------
// Part 3: the host round trip.

// handout:begin host
void add_scaled_host(const float* a, const float* b, float* c, int width, int height, float alpha) {
    const size_t row_bytes = static_cast<size_t>(width) * sizeof(float);  // also the host pitch
    float *da = nullptr, *db = nullptr, *dc = nullptr;
    size_t pitch = 0, pitch_b = 0, pitch_c = 0;
    CUDA_CHECK(cudaMallocPitch(reinterpret_cast<void**>(&da), &pitch, row_bytes, height));
    CUDA_CHECK(cudaMallocPitch(reinterpret_cast<void**>(&db), &pitch_b, row_bytes, height));
    CUDA_CHECK(cudaMallocPitch(reinterpret_cast<void**>(&dc), &pitch_c, row_bytes, height));
    // Same width, same pitch: one pitch serves the three matrices in the kernel.
    CUDA_CHECK(cudaMemcpy2D(da, pitch, a, row_bytes, row_bytes, height, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy2D(db, pitch_b, b, row_bytes, row_bytes, height, cudaMemcpyHostToDevice));
    add_scaled_pitched(da, db, dc, pitch, width, height, alpha, 0);
    CUDA_CHECK(cudaMemcpy2D(c, row_bytes, dc, pitch_c, row_bytes, height, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaFree(da));
    CUDA_CHECK(cudaFree(db));
    CUDA_CHECK(cudaFree(dc));
}
// handout:end host
