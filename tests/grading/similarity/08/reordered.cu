// Lab 08 -- transpose: reference solution.
#include "transpose.h"

constexpr int kTile = 32;     // the tile is 32 x 32: one warp spans a tile row
constexpr int kBlockRows = 8; // 32 x 8 threads: each thread moves 4 elements of a tile
// handout:end padded

// handout:begin fast
// 64 x 64 tiles, 256 threads, 16 elements per thread: more bytes in flight per thread than the
// 32 x 32 kernel, and (when rows and cols are multiples of 4) 16-byte loads and stores, so
// each warp instruction moves 512 bytes.
constexpr int kFastTile = 64;
constexpr int kFastThreads = 256;
// handout:end fast

void transpose_fast(const float* in, float* out, int rows, int cols, cudaStream_t stream) {
    const dim3 grid((cols + kFastTile - 1) / kFastTile, (rows + kFastTile - 1) / kFastTile);
    // float4 needs every row of in and of out to start on a 16-byte boundary.
    if (rows % 4 == 0 && cols % 4 == 0)
        transpose_fast_kernel<true><<<grid, kFastThreads, 0, stream>>>(in, out, rows, cols);
    else
        transpose_fast_kernel<false><<<grid, kFastThreads, 0, stream>>>(in, out, rows, cols);
    CHECK_LAUNCH();
}

template <bool Vec>
__global__ void __launch_bounds__(kFastThreads)
transpose_fast_kernel(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
    __shared__ float tile[kFastTile][kFastTile + 1];
    const int r0 = blockIdx.y * kFastTile, c0 = blockIdx.x * kFastTile;
    const int q = threadIdx.x % 16;    // which group of 4 floats along a tile row
    const int row = threadIdx.x / 16;  // 16 tile rows per pass, 4 passes
#pragma unroll
    for (int i = 0; i < kFastTile; i += 16) {
        const int r = r0 + row + i, c = c0 + 4 * q;
        float* t = &tile[row + i][4 * q];
        if (Vec) {  // cols % 4 == 0: c < cols means all four are inside, and 16-byte aligned
            if (r < rows && c < cols) {
                const float4 v = *reinterpret_cast<const float4*>(in + static_cast<size_t>(r) * cols + c);
                t[0] = v.x; t[1] = v.y; t[2] = v.z; t[3] = v.w;
            }
        } else if (r < rows) {
#pragma unroll
            for (int e = 0; e < 4; ++e)
                if (c + e < cols) t[e] = in[static_cast<size_t>(r) * cols + c + e];
        }
    }
    __syncthreads();
#pragma unroll
    for (int i = 0; i < kFastTile; i += 16) {
        const int oc = row + i;                        // tile column = row of out
        const int orow = c0 + oc, ocol = r0 + 4 * q;   // out is cols x rows
        if (orow >= cols) continue;
        float* o = out + static_cast<size_t>(orow) * rows + ocol;
        if (Vec) {
            if (ocol < rows)
                *reinterpret_cast<float4*>(o) = make_float4(tile[4 * q][oc], tile[4 * q + 1][oc],
                                                            tile[4 * q + 2][oc], tile[4 * q + 3][oc]);
        } else {
#pragma unroll
            for (int e = 0; e < 4; ++e)
                if (ocol + e < rows) o[e] = tile[4 * q + e][oc];
        }
    }
}
// handout:end tiled

// handout:begin padded
void transpose_padded(const float* in, float* out, int rows, int cols, cudaStream_t stream) {
    // With 33 floats per tile row, element [tx][j] sits in bank (33 * tx + j) % 32 = (tx + j) % 32:
    // a column spreads over all 32 banks.
    const dim3 block(kTile, kBlockRows);
    const dim3 grid((cols + kTile - 1) / kTile, (rows + kTile - 1) / kTile);
    transpose_tile_kernel<1><<<grid, block, 0, stream>>>(in, out, rows, cols);
    CHECK_LAUNCH();
}

void transpose_tiled(const float* in, float* out, int rows, int cols, cudaStream_t stream) {
    const dim3 block(kTile, kBlockRows);
    const dim3 grid((cols + kTile - 1) / kTile, (rows + kTile - 1) / kTile);
    transpose_tile_kernel<0><<<grid, block, 0, stream>>>(in, out, rows, cols);
    CHECK_LAUNCH();
}
// handout:end naive

// handout:begin tiled
// Pad = 0: the tiled kernel; Pad = 1: the padded one. Everything else is the same.
template <int Pad>
__global__ void transpose_tile_kernel(const float* in, float* out, int rows, int cols) {
    __shared__ float tile[kTile][kTile + Pad];
    const int r0 = blockIdx.y * kTile, c0 = blockIdx.x * kTile;
    const int tx = threadIdx.x, ty = threadIdx.y;
    // Read a 32 x 32 tile along its rows: each warp reads 32 consecutive floats.
    for (int j = ty; j < kTile; j += kBlockRows) {
        const int r = r0 + j, c = c0 + tx;
        if (r < rows && c < cols) tile[j][tx] = in[r * cols + c];
    }
    __syncthreads();  // the whole tile is loaded before any thread reads another's element
    // Write the transposed tile along rows of out: consecutive threads write consecutive
    // floats of out (coalesced) and read a column of the tile. Without padding the 32 floats
    // of a column are 32 words apart, all in one bank: a 32-way conflict.
    for (int j = ty; j < kTile; j += kBlockRows) {
        const int orow = c0 + j, ocol = r0 + tx;  // out is cols x rows
        if (orow < cols && ocol < rows) out[orow * rows + ocol] = tile[tx][j];
    }
}

void transpose_naive(const float* in, float* out, int rows, int cols, cudaStream_t stream) {
    const dim3 block(kTile, kBlockRows);
    const dim3 grid((cols + kTile - 1) / kTile, (rows + kBlockRows - 1) / kBlockRows);
    transpose_naive_kernel<<<grid, block, 0, stream>>>(in, out, rows, cols);
    CHECK_LAUNCH();
}

// handout:begin naive
__global__ void transpose_naive_kernel(const float* in, float* out, int rows, int cols) {
    const int c = blockIdx.x * blockDim.x + threadIdx.x;  // threadIdx.x runs along a row of in
    const int r = blockIdx.y * blockDim.y + threadIdx.y;
    // Neighbouring threads read neighbouring floats (coalesced) but write `rows` floats apart:
    // every store of a warp touches 32 different memory segments.
    if (r < rows && c < cols) out[c * rows + r] = in[r * cols + c];
}
