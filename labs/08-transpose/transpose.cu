// Lab 08 -- transpose. Your work goes in this file: complete every TODO(lab08).
// Build and run:   make lab08 && ./lab08          (one variant: ./lab08 --variant naive)
// The driver checks every variant on square and non-square matrices (1 x 1, primes, sizes that
// are not multiples of the tile) and reports GB/s as a ratio to the GPU's copy bandwidth.
//
// in is rows x cols, row-major; out is cols x rows: out[c * rows + r] = in[r * cols + c].
#include "transpose.h"

constexpr int kTile = 32;     // the tile is 32 x 32: one warp spans a tile row
constexpr int kBlockRows = 8; // 32 x 8 threads: each thread moves 4 elements of a tile

// ---------------------------------------------------------------------------------------------
// Part 1: one thread per element. threadIdx.x runs along a row of `in`, so the reads of a warp
// are 32 neighbouring floats; the writes land `rows` floats apart.

// handout:begin naive
__global__ void transpose_naive_kernel(const float* in, float* out, int rows, int cols) {
    // TODO(lab08) naive (about 3 lines): c = column from blockIdx.x/threadIdx.x, r = row from blockIdx.y/
    // threadIdx.y; if both are inside the matrix, out[c * rows + r] = in[r * cols + c].
}

void transpose_naive(const float* in, float* out, int rows, int cols, cudaStream_t stream) {
    const dim3 block(kTile, kBlockRows);
    const dim3 grid((cols + kTile - 1) / kTile, (rows + kBlockRows - 1) / kBlockRows);
    transpose_naive_kernel<<<grid, block, 0, stream>>>(in, out, rows, cols);
    CHECK_LAUNCH();
}
// handout:end naive

// ---------------------------------------------------------------------------------------------
// Part 2: through shared memory. A block of 32 x 8 threads handles a 32 x 32 tile: it reads the
// tile along rows of `in` into shared memory, waits (__syncthreads), then writes it along rows
// of `out`, reading the tile by column. Both global accesses are coalesced now.

// handout:begin tiled
// Pad = 0 for the tiled variant, 1 for the padded one: declare the tile as
// __shared__ float tile[kTile][kTile + Pad];
template <int Pad>
__global__ void transpose_tile_kernel(const float* in, float* out, int rows, int cols) {
    // TODO(lab08) tiled (about 12 lines): with r0 = blockIdx.y * kTile and c0 = blockIdx.x * kTile,
    //  1. for j = threadIdx.y, +kBlockRows, while j < kTile: tile[j][threadIdx.x] = in at row
    //     r0 + j, column c0 + threadIdx.x (when inside the matrix);
    //  2. __syncthreads();
    //  3. write the tile to `out`, which is cols x rows, so that the 32 threads of a warp store
    //     32 neighbouring floats of one row of `out` (coalesced), guarded against its edges.
    //     Work out on paper, for a 4 x 4 tile: which rows and columns of `out` does this
    //     tile cover, and which element of the shared tile must thread x store there?
}

void transpose_tiled(const float* in, float* out, int rows, int cols, cudaStream_t stream) {
    const dim3 block(kTile, kBlockRows);
    const dim3 grid((cols + kTile - 1) / kTile, (rows + kTile - 1) / kTile);
    transpose_tile_kernel<0><<<grid, block, 0, stream>>>(in, out, rows, cols);
    CHECK_LAUNCH();
}
// handout:end tiled

// handout:begin padded
void transpose_padded(const float* in, float* out, int rows, int cols, cudaStream_t stream) {
    // TODO(lab08) padded (about 4 lines): launch transpose_tile_kernel<1> like transpose_tiled does. Why does
    // one extra float per tile row remove the bank conflicts of step 3? (Which banks hold the
    // 32 floats of one column of the tile, with 32 floats per row, and with 33?)
}
// handout:end padded

// ---------------------------------------------------------------------------------------------
// Part 3: fast. Ideas: a 64 x 64 tile and 256 threads (16 elements per thread keeps more
// loads in flight); when rows and cols are multiples of 4, float4 loads and stores (every row
// then starts on a 16-byte boundary); keep the padding. Target: 0.90 of the copy bandwidth at
// 8192 x 8192 (./lab08 --bench).

// handout:begin fast
void transpose_fast(const float* in, float* out, int rows, int cols, cudaStream_t stream) {
    // TODO(lab08) fast (about 40 lines): write a faster kernel above and launch it here on `stream`, then
    // CHECK_LAUNCH(). It must stay correct for any rows and cols.
}
// handout:end fast
