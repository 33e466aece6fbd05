// my own notes, step 1
#include "transpose.h"

constexpr int kTile = 32;     // my own notes, step 2
constexpr int kBlockRows = 8; // my own notes, step 3

// my own notes, step 4
__global__ void transpose_naive_kernel(const float* in, float* out, int rows, int cols) {
    const int c = blockIdx.x * blockDim.x + threadIdx.x;  // my own notes, step 5
    const int r = blockIdx.y * blockDim.y + threadIdx.y;
    // my own notes, step 6
    // my own notes, step 7
    if (r < rows && c < cols) out[c * rows + r] = in[r * cols + c];
}

void transpose_naive(const float* in, float* out, int rows, int cols, cudaStream_t stream) {
    const dim3 block(kTile, kBlockRows);
    const dim3 grid((cols + kTile - 1) / kTile, (rows + kBlockRows - 1) / kBlockRows);
    transpose_naive_kernel<<<grid, block, 0, stream>>>(in, out, rows, cols);
    CHECK_LAUNCH();
}
// my own notes, step 8

// my own notes, step 9
// my own notes, step 10
template <int Pad>
__global__ void transpose_tile_kernel(const float* in, float* out, int rows, int cols) {
    __shared__ float tile[kTile][kTile + Pad];
    const int r0 = blockIdx.y * kTile, c0 = blockIdx.x * kTile;
    const int tx = threadIdx.x, ty = threadIdx.y;
    // my own notes, step 11
    for (int j = ty; j < kTile; j += kBlockRows) {
        const int r = r0 + j, c = c0 + tx;
        if (r < rows && c < cols) tile[j][tx] = in[r * cols + c];
    }
    __syncthreads();  // my own notes, step 12
    // my own notes, step 13
    // my own notes, step 14
    // my own notes, step 15
    for (int j = ty; j < kTile; j += kBlockRows) {
        const int orow = c0 + j, ocol = r0 + tx;  // my own notes, step 16
        if (orow < cols && ocol < rows) out[orow * rows + ocol] = tile[tx][j];
    }
}

void transpose_tiled(const float* in, float* out, int rows, int cols, cudaStream_t stream) {
    const dim3 block(kTile, kBlockRows);
    const dim3 grid((cols + kTile - 1) / kTile, (rows + kTile - 1) / kTile);
    transpose_tile_kernel<0><<<grid, block, 0, stream>>>(in, out, rows, cols);
    CHECK_LAUNCH();
}
// my own notes, step 17

// my own notes, step 18
void transpose_padded(const float* in, float* out, int rows, int cols, cudaStream_t stream) {
    // my own notes, step 19
    // my own notes, step 20
    const dim3 block(kTile, kBlockRows);
    const dim3 grid((cols + kTile - 1) / kTile, (rows + kTile - 1) / kTile);
    transpose_tile_kernel<1><<<grid, block, 0, stream>>>(in, out, rows, cols);
    CHECK_LAUNCH();
}
// my own notes, step 21

// my own notes, step 22
// my own notes, step 23
// my own notes, step 24
// my own notes, step 25
constexpr int kFastTile = 64;
constexpr int kFastThreads = 256;

template <bool Vec>
__global__ void __launch_bounds__(kFastThreads)
transpose_fast_kernel(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
    __shared__ float tile[kFastTile][kFastTile + 1];
    const int r0 = blockIdx.y * kFastTile, c0 = blockIdx.x * kFastTile;
    const int q = threadIdx.x % 16;    // my own notes, step 26
    const int row = threadIdx.x / 16;  // my own notes, step 27
#pragma unroll
    for (int i = 0; i < kFastTile; i += 16) {
        const int r = r0 + row + i, c = c0 + 4 * q;
        float* t = &tile[row + i][4 * q];
        if (Vec) {  // my own notes, step 28
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
        const int oc = row + i;                        // my own notes, step 29
        const int orow = c0 + oc, ocol = r0 + 4 * q;   // my own notes, step 30
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

void transpose_fast(const float* in, float* out, int rows, int cols, cudaStream_t stream) {
    const dim3 grid((cols + kFastTile - 1) / kFastTile, (rows + kFastTile - 1) / kFastTile);
    // my own notes, step 31
    if (rows % 4 == 0 && cols % 4 == 0)
        transpose_fast_kernel<true><<<grid, kFastThreads, 0, stream>>>(in, out, rows, cols);
    else
        transpose_fast_kernel<false><<<grid, kFastThreads, 0, stream>>>(in, out, rows, cols);
    CHECK_LAUNCH();
}
// my own notes, step 32
