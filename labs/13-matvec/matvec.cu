// Lab 13 -- matrix-vector products. Your work goes in this file: complete every TODO(lab13).
// Build and run:   make lab13 && ./lab13
// The driver checks every variant against a double-precision CPU reference at awkward shapes
// (1 x 1, a single row, a single column, primes, non-multiples of the block) and times it
// against cublasSgemv. Compare with the reference solution: make sol13 && ./sol13
//
// A is row-major: element (r, c) is A[(size_t)r * cols + c] (use size_t: rows * cols can pass
// 2^31). Every launcher enqueues on `stream`, is followed by CHECK_LAUNCH(), and must write
// every element of y.
#include "matvec.h"

// handout:begin helpers
// A launch needs (n + per_block - 1) / per_block blocks; this form cannot overflow an int.
inline int blocks_for(int n, int per_block) { return (n - 1) / per_block + 1; }
// handout:end helpers

// =============================================================================================
// Part 1: y = A x, y[r] = sum over c of A[r][c] * x[c].

// handout:begin matvec_naive
__global__ void matvec_row_per_thread(const float* A, const float* x, float* y, int rows, int cols) {
    // TODO(lab13) matvec_naive (about 5 lines): thread r = blockIdx.x * blockDim.x + threadIdx.x computes row r:
    // if r < rows, add A[r][c] * x[c] over every column c into a float, then store y[r] once.
}

void matvec_naive(const float* A, const float* x, float* y, int rows, int cols, cudaStream_t stream) {
    // TODO(lab13) matvec_naive (about 2 lines): launch matvec_row_per_thread on `stream` with 256 threads per block
    // and blocks_for(rows, 256) blocks, then CHECK_LAUNCH().
    // Afterwards, think about which addresses the 32 threads of one warp read at the same step.
}
// handout:end matvec_naive

// handout:begin matvec_shared
// Every thread of the naive kernel reads all of x from global memory. Here the block reads x
// once, into shared memory, in chunks of 256 elements (blockDim.x): cols need not be a multiple
// of 256, so the last chunk is shorter.
__global__ void matvec_row_per_thread_shared_x(const float* A, const float* x, float* y, int rows,
                                               int cols) {
    // TODO(lab13) matvec_shared (about 15 lines): with 256 threads per block, one row per thread as before:
    //  - declare __shared__ float xs[256] (the chunk of x) and __shared__ float partial[256]
    //    (each thread's running sum; set partial[threadIdx.x] = 0). The assignment keeps the sum
    //    there; a register is the better place (one thread's own value, no shared-memory load and
    //    store per update): either passes;
    //  - for each chunk starting at base = 0, 256, 512, ... < cols, of len = min(256, cols - base):
    //      thread t < len copies x[base + t] into xs[t];  __syncthreads();
    //      if the thread's row exists, add A[r][base + j] * xs[j] for j < len to partial[t];
    //      __syncthreads() (why is this one needed?);
    //  - write y[r] = partial[t] once, at the end (only for rows that exist).
    // Every thread must reach every __syncthreads(), including those past the last row.
}

void matvec_shared(const float* A, const float* x, float* y, int rows, int cols, cudaStream_t stream) {
    // TODO(lab13) matvec_shared (about 2 lines): launch matvec_row_per_thread_shared_x on `stream` (256 threads per
    // block, blocks_for(rows, 256) blocks), then CHECK_LAUNCH().
}
// handout:end matvec_shared

// handout:begin matvec_warp
// The rows are the problem: give each row a whole warp, so that the 32 lanes read 32 neighbouring
// floats (one 128-byte line) at each step, and add the lanes' sums with shuffles.
__global__ void matvec_warp_per_row(const float* A, const float* x, float* y, int rows, int cols) {
    // TODO(lab13) matvec_warp (about 15 lines): with 8 warps (256 threads) per block, warp w of block b takes row
    // r = b * 8 + w (lane = threadIdx.x % 32):
    //  - lane adds A[r][c] * x[c] for c = lane, lane + 32, lane + 64, ... < cols;
    //  - reduce the 32 sums: sum += __shfl_down_sync(0xffffffff, sum, offset) for offset
    //    16, 8, 4, 2, 1; lane 0 writes y[r].
    // Then make it fast: when cols % 4 == 0 (each row starts on 16 bytes) load float4s, and keep
    // several loads in flight per lane (unroll the loop by hand). Target: cublas_matvec.
}

void matvec_warp(const float* A, const float* x, float* y, int rows, int cols, cudaStream_t stream) {
    // TODO(lab13) matvec_warp (about 2 lines): launch matvec_warp_per_row on `stream` with 256 threads per block and
    // blocks_for(rows, 8) blocks, then CHECK_LAUNCH().
}
// handout:end matvec_warp

// =============================================================================================
// Part 2: y^T = x^T A, y[c] = sum over r of x[r] * A[r][c].

// handout:begin vecmat_naive
__global__ void vecmat_column_per_thread(const float* A, const float* x, float* y, int rows, int cols) {
    // TODO(lab13) vecmat_naive (about 5 lines): thread c = blockIdx.x * blockDim.x + threadIdx.x computes column c:
    // if c < cols, add x[r] * A[r][c] over every row r, then store y[c] once.
}

void vecmat_naive(const float* A, const float* x, float* y, int rows, int cols, cudaStream_t stream) {
    // TODO(lab13) vecmat_naive (about 2 lines): launch vecmat_column_per_thread on `stream` with 256 threads per
    // block and blocks_for(cols, 256) blocks, then CHECK_LAUNCH(). Are its reads coalesced? How
    // many blocks does a 4096-column matrix get, and how many SMs does your GPU have?
}
// handout:end vecmat_naive

// handout:begin vecmat_shared
// Optimise x^T A the way matvec_shared did A x, and give the GPU enough threads:
//  - a block of 32 x 8 threads owns a strip of columns (32, or 128 with float4 loads when
//    cols % 4 == 0); its 8 warps take every 8th row, so each warp reads a row's strip coalesced;
//  - x comes through shared memory, one chunk of rows at a time (a broadcast to the warp);
//  - the 8 warps' sums are added in shared memory and written once;
//  - with few columns there are too few strips to fill the GPU: split the rows too, over
//    gridDim.y blocks, and combine their partial sums (atomicAdd into y zeroed first with
//    cudaMemsetAsync on `stream`, or partial sums in a workspace added by the last block).
// Last step, for compute capability 9.0 and newer (H100, H200): make the blocks of a strip one
// thread block cluster and let them add their sums through distributed shared memory (the
// handout explains how; the reference solution does it).
__global__ void vecmat_strip(const float* A, const float* x, float* y, int rows, int cols) {
    // TODO(lab13) vecmat_shared (about 50 lines): the kernel described above (change its parameters as you need).
}

void vecmat_shared(const float* A, const float* x, float* y, int rows, int cols, cudaStream_t stream) {
    // TODO(lab13) vecmat_shared (about 10 lines): choose the grid (strips x row splits: about 4 blocks per SM,
    // cudaDevAttrMultiProcessorCount gives the SM count), launch on `stream`, then CHECK_LAUNCH().
    // Target: cublas_vecmat (its ratio is in the note column).
}
// handout:end vecmat_shared
