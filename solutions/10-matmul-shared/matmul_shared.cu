// Lab 10 -- matrix product with shared memory: reference solution.
#include "matmul_shared.h"

// handout:begin tiled16
// C is cut into Tile x Tile blocks, one thread per element. The block walks along a row of
// tiles of A and a column of tiles of B: it loads one tile of each into shared memory, waits,
// multiplies them, waits again, and moves on. Every element loaded from global memory is then
// used Tile times: 2k/Tile global loads per element of C instead of 2k.
template <class T, int Tile>
__global__ void matmul_tiled_kernel(const T* a, const T* b, T* c, int m, int n, int k) {
    __shared__ T as[Tile][Tile];  // as[row][p]: threads with consecutive tx write consecutive words
    __shared__ T bs[Tile][Tile];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * Tile + ty, col = blockIdx.x * Tile + tx;
    T sum = 0;
    for (int p0 = 0; p0 < k; p0 += Tile) {
        // Past the edge of A or B, load zeros: they add nothing to the sum, and every thread
        // still reaches both barriers.
        as[ty][tx] = (row < m && p0 + tx < k) ? a[row * k + p0 + tx] : T(0);
        bs[ty][tx] = (p0 + ty < k && col < n) ? b[(p0 + ty) * n + col] : T(0);
        __syncthreads();  // both tiles complete
#pragma unroll
        for (int p = 0; p < Tile; ++p) sum += as[ty][p] * bs[p][tx];  // as: broadcast, bs: a row
        __syncthreads();  // nobody overwrites a tile another thread still reads
    }
    if (row < m && col < n) c[row * n + col] = sum;
}

template <class T, int Tile>
void launch_tiled(const T* a, const T* b, T* c, int m, int n, int k, cudaStream_t stream) {
    const dim3 block(Tile, Tile);
    const dim3 grid((n + Tile - 1) / Tile, (m + Tile - 1) / Tile);
    matmul_tiled_kernel<T, Tile><<<grid, block, 0, stream>>>(a, b, c, m, n, k);
    CHECK_LAUNCH();
}

void matmul_tiled16(const float* a, const float* b, float* c, int m, int n, int k, cudaStream_t stream) {
    launch_tiled<float, 16>(a, b, c, m, n, k, stream);
}
// handout:end tiled16

// handout:begin tiled32
void matmul_tiled32(const float* a, const float* b, float* c, int m, int n, int k, cudaStream_t stream) {
    launch_tiled<float, 32>(a, b, c, m, n, k, stream);
}
// handout:end tiled32

// handout:begin tiled32_double
void matmul_tiled32(const double* a, const double* b, double* c, int m, int n, int k, cudaStream_t stream) {
    launch_tiled<double, 32>(a, b, c, m, n, k, stream);
}
// handout:end tiled32_double

// handout:begin conflict
// The tiles stored transposed: as[x][y] holds A's tile element (y, x). The sum reads
// bs[tx][p]: the 32 threads of a warp (tx = 0..31) read words 32 apart (33 apart with Pad = 1).
// With 32 banks of 4-byte words, word w lives in bank w % 32: 32 apart is one bank for the
// whole warp (a 32-way conflict, the access is replayed 32 times); 33 apart is 32 banks.
// The stores as[tx][ty] = ... conflict the same way. In double, a word is two banks and the
// warp is served in two halves: [32][32] still conflicts, [32][33] does not.
template <class T, int Pad>
__global__ void matmul_transposed_kernel(const T* a, const T* b, T* c, int m, int n, int k) {
    constexpr int Tile = 32;
    __shared__ T as[Tile][Tile + Pad];
    __shared__ T bs[Tile][Tile + Pad];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * Tile + ty, col = blockIdx.x * Tile + tx;
    T sum = 0;
    for (int p0 = 0; p0 < k; p0 += Tile) {
        as[tx][ty] = (row < m && p0 + tx < k) ? a[row * k + p0 + tx] : T(0);
        bs[tx][ty] = (p0 + ty < k && col < n) ? b[(p0 + ty) * n + col] : T(0);
        __syncthreads();
#pragma unroll
        for (int p = 0; p < Tile; ++p) sum += as[p][ty] * bs[tx][p];
        __syncthreads();
    }
    if (row < m && col < n) c[row * n + col] = sum;
}

template <class T, int Pad>
void launch_transposed(const T* a, const T* b, T* c, int m, int n, int k, cudaStream_t stream) {
    const dim3 block(32, 32);
    const dim3 grid((n + 31) / 32, (m + 31) / 32);
    matmul_transposed_kernel<T, Pad><<<grid, block, 0, stream>>>(a, b, c, m, n, k);
    CHECK_LAUNCH();
}

void matmul_conflict(const float* a, const float* b, float* c, int m, int n, int k, cudaStream_t stream) {
    launch_transposed<float, 0>(a, b, c, m, n, k, stream);
}
// handout:end conflict

// handout:begin conflict_double
void matmul_conflict(const double* a, const double* b, double* c, int m, int n, int k, cudaStream_t stream) {
    launch_transposed<double, 0>(a, b, c, m, n, k, stream);
}
// handout:end conflict_double

// handout:begin padded
void matmul_padded(const float* a, const float* b, float* c, int m, int n, int k, cudaStream_t stream) {
    launch_transposed<float, 1>(a, b, c, m, n, k, stream);
}
// handout:end padded

// handout:begin padded_double
void matmul_padded(const double* a, const double* b, double* c, int m, int n, int k, cudaStream_t stream) {
    launch_transposed<double, 1>(a, b, c, m, n, k, stream);
}
// handout:end padded_double

// handout:begin dynamic
// One dynamic allocation, sized by the third launch parameter. Every `extern __shared__`
// array starts at the same address, so the second tile is carved out by hand, after the first.
__global__ void matmul_dynamic_kernel(const float* a, const float* b, float* c, int m, int n, int k) {
    extern __shared__ float smem[];
    const int tile = blockDim.x;  // square blocks: the tile size is whatever the launch chose
    float* as = smem;              // tile x tile floats
    float* bs = smem + tile * tile;  // the next tile x tile floats
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * tile + ty, col = blockIdx.x * tile + tx;
    float sum = 0;
    for (int p0 = 0; p0 < k; p0 += tile) {
        as[ty * tile + tx] = (row < m && p0 + tx < k) ? a[row * k + p0 + tx] : 0.0f;
        bs[ty * tile + tx] = (p0 + ty < k && col < n) ? b[(p0 + ty) * n + col] : 0.0f;
        __syncthreads();
        for (int p = 0; p < tile; ++p) sum += as[ty * tile + p] * bs[p * tile + tx];
        __syncthreads();
    }
    if (row < m && col < n) c[row * n + col] = sum;
}

void matmul_dynamic(const float* a, const float* b, float* c, int m, int n, int k, cudaStream_t stream) {
    const int tile = 32;  // chosen at run time: any size up to 32 works (32 x 32 = 1024 threads)
    const size_t shared_bytes = 2 * sizeof(float) * tile * tile;  // both tiles
    const dim3 block(tile, tile);
    const dim3 grid((n + tile - 1) / tile, (m + tile - 1) / tile);
    matmul_dynamic_kernel<<<grid, block, shared_bytes, stream>>>(a, b, c, m, n, k);
    CHECK_LAUNCH();
}
// handout:end dynamic
