// Lab 10 -- matrix product with shared memory. Your work goes in this file: complete every
// TODO(lab10).
// Build and run:   make lab10 && ./lab10          (one variant: ./lab10 --variant tiled16)
// The driver checks every variant (1 x 1, primes, sizes that are not multiples of the tile,
// non-square) and reports GFLOP/s as a ratio to cublasSgemm at the same size.
//
// All matrices are row-major: A is m x k, B is k x n, C = A * B is m x n.

// ---------------------------------------------------------------------------------------------
// Part 1: tiles in shared memory. C is cut into Tile x Tile blocks, one thread per element.
// The block walks along a row of tiles of A and down a column of tiles of B. For each pair:
//   load one tile of A and one of B into shared memory (each thread loads one element of each)
//   __syncthreads()            -- both tiles complete before anyone reads them
//   sum += row of the A tile * column of the B tile
//   __syncthreads()            -- nobody overwrites a tile that another thread still reads
// Sizes need not be multiples of Tile: past the edge of A or B, store 0 in the tile (it adds
// nothing) -- and every thread must still reach both barriers, so do not return early.
#include "matmul_shared.h"

// handout:begin tiled16
template <class T, int Tile>
__global__ void matmul_tiled_kernel(const T* a, const T* b, T* c, int m, int n, int k) {
    __shared__ T as[Tile][Tile];
    __shared__ T bs[Tile][Tile];
    // TODO(lab10) tiled16 (about 15 lines): with tx, ty = threadIdx.x, .y, row = blockIdx.y * Tile + ty,
    // col = blockIdx.x * Tile + tx and a sum of type T starting at 0, for p0 = 0, Tile, 2*Tile, ... < k:
    //   as[ty][tx] = A[row][p0 + tx] (or 0 outside A); bs[ty][tx] = B[p0 + ty][col] (or 0);
    //   __syncthreads(); sum += as[ty][p] * bs[p][tx] for p < Tile; __syncthreads();
    // then, if (row, col) is inside C, store sum.
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
    // TODO(lab10) tiled32 (about 1 line): the same kernel with 32 x 32 tiles (launch_tiled<float, 32>).
}
// handout:end tiled32

// handout:begin tiled32_double
void matmul_tiled32(const double* a, const double* b, double* c, int m, int n, int k, cudaStream_t stream) {
    // TODO(lab10) tiled32_double (about 1 line): the same in double. Compare its GFLOP/s with tiled32's.
}
// handout:end tiled32_double

// ---------------------------------------------------------------------------------------------
// Part 2: bank conflicts. Shared memory is 32 banks of 4-byte words; word w is in bank w % 32.
// When the 32 threads of a warp touch different words of one bank, the access is replayed once
// per word. Store the tiles transposed, as the seed program did:
//   as[tx][ty] = A[row][p0 + tx];   bs[tx][ty] = B[p0 + ty][col];
//   sum += as[p][ty] * bs[tx][p];
// Threads of a warp differ in tx: how far apart are the words bs[tx][p] for tx = 0..31 with
// 32 columns, and with 33? Measure: ./lab10 --variant conflict,padded

// handout:begin conflict
// Pad = 0: as[Tile][Tile] (the conflict variant); Pad = 1: as[Tile][Tile + 1] (padded).
template <class T, int Pad>
__global__ void matmul_transposed_kernel(const T* a, const T* b, T* c, int m, int n, int k) {
    constexpr int Tile = 32;
    __shared__ T as[Tile][Tile + Pad];
    __shared__ T bs[Tile][Tile + Pad];
    // TODO(lab10) conflict (about 15 lines): the tiled kernel with the transposed stores and reads above
    // (guards as in Part 1).
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
    // TODO(lab10) conflict_double (about 1 line): launch_transposed<double, 0>.
}
// handout:end conflict_double

// handout:begin padded
void matmul_padded(const float* a, const float* b, float* c, int m, int n, int k, cudaStream_t stream) {
    // TODO(lab10) padded (about 1 line): launch_transposed<float, 1>: one extra word per tile row.
}
// handout:end padded

// handout:begin padded_double
void matmul_padded(const double* a, const double* b, double* c, int m, int n, int k, cudaStream_t stream) {
    // TODO(lab10) padded_double (about 1 line): launch_transposed<double, 1>. A double is two banks wide and a
    // warp's 64-bit accesses are served in two halves: does [32][33] still help?
}
// handout:end padded_double

// ---------------------------------------------------------------------------------------------
// Part 3: dynamic shared memory. `extern __shared__ float smem[];` has no size in the code: the
// launch gives it, as the third <<<...>>> parameter, in bytes. Every extern __shared__ array
// starts at the same address, so two tiles must be carved out of one array by hand:
//   float* as = smem;  float* bs = smem + tile * tile;

// handout:begin dynamic
__global__ void matmul_dynamic_kernel(const float* a, const float* b, float* c, int m, int n, int k) {
    extern __shared__ float smem[];
    // TODO(lab10) dynamic (about 15 lines): the tile size is whatever the launch chose (square blocks:
    // tile = blockDim.x); carve as and bs out of smem, then the tiled product with
    // as[ty * tile + tx] in place of as[ty][tx].
}

void matmul_dynamic(const float* a, const float* b, float* c, int m, int n, int k, cudaStream_t stream) {
    // TODO(lab10) dynamic (about 6 lines): launch matmul_dynamic_kernel with tile x tile blocks (tile = 32), a grid that
    // covers C, and the bytes of both tiles as the third launch parameter; then CHECK_LAUNCH().
}
// handout:end dynamic
