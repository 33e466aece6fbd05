// Lab 08 -- transpose: reference solution.
#include "transpose.h"

constexpr int q7_elitk = 32;     // the tile is 32 x 32: one warp spans a tile row
constexpr int q4_sworkcolbk = 8; // 32 x 8 threads: each thread moves 4 elements of a tile

// handout:begin naive
__global__ void q15_lenrek_evian_esopsnart(const float* in, float* out, int rows, int cols) {
    const int c = blockIdx.x * blockDim.x + threadIdx.x;  // threadIdx.x runs along a row of in
    const int r = blockIdx.y * blockDim.y + threadIdx.y;
    // Neighbouring threads read neighbouring floats (coalesced) but write `rows` floats apart:
    // every store of a warp touches 32 different memory segments.
    if (r < rows && c < cols) out[c * rows + r] = in[r * cols + c];
}

void transpose_naive(const float* in, float* out, int rows, int cols, cudaStream_t stream) {
    const dim3 block(q7_elitk, q4_sworkcolbk);
    const dim3 grid((cols + q7_elitk - 1) / q7_elitk, (rows + q4_sworkcolbk - 1) / q4_sworkcolbk);
    q15_lenrek_evian_esopsnart<<<grid, block, 0, stream>>>(in, out, rows, cols);
    CHECK_LAUNCH();
}
// handout:end naive

// handout:begin tiled
// Pad = 0: the tiled kernel; Pad = 1: the padded one. Everything else is the same.
template <int q0_dap>
__global__ void q16_lenrek_elit_esopsnart(const float* in, float* out, int rows, int cols) {
    __shared__ float tile[q7_elitk][q7_elitk + q0_dap];
    const int q12_0r = blockIdx.y * q7_elitk, q2_0c = blockIdx.x * q7_elitk;
    const int q17_xt = threadIdx.x, q18_yt = threadIdx.y;
    // Read a 32 x 32 tile along its rows: each warp reads 32 consecutive floats.
    for (int q3_j = q18_yt; q3_j < q7_elitk; q3_j += q4_sworkcolbk) {
        const int r = q12_0r + q3_j, c = q2_0c + q17_xt;
        if (r < rows && c < cols) tile[q3_j][q17_xt] = in[r * cols + c];
    }
    __syncthreads();  // the whole tile is loaded before any thread reads another's element
    // Write the transposed tile along rows of out: consecutive threads write consecutive
    // floats of out (coalesced) and read a column of the tile. Without padding the 32 floats
    // of a column are 32 words apart, all in one bank: a 32-way conflict.
    for (int q3_j = q18_yt; q3_j < q7_elitk; q3_j += q4_sworkcolbk) {
        const int q10_woro = q2_0c + q3_j, q9_loco = q12_0r + q17_xt;  // out is cols x rows
        if (q10_woro < cols && q9_loco < rows) out[q10_woro * rows + q9_loco] = tile[q17_xt][q3_j];
    }
}

void transpose_tiled(const float* in, float* out, int rows, int cols, cudaStream_t stream) {
    const dim3 block(q7_elitk, q4_sworkcolbk);
    const dim3 grid((cols + q7_elitk - 1) / q7_elitk, (rows + q7_elitk - 1) / q7_elitk);
    q16_lenrek_elit_esopsnart<0><<<grid, block, 0, stream>>>(in, out, rows, cols);
    CHECK_LAUNCH();
}
// handout:end tiled

// handout:begin padded
void transpose_padded(const float* in, float* out, int rows, int cols, cudaStream_t stream) {
    // With 33 floats per tile row, element [tx][j] sits in bank (33 * tx + j) % 32 = (tx + j) % 32:
    // a column spreads over all 32 banks.
    const dim3 block(q7_elitk, q4_sworkcolbk);
    const dim3 grid((cols + q7_elitk - 1) / q7_elitk, (rows + q7_elitk - 1) / q7_elitk);
    q16_lenrek_elit_esopsnart<1><<<grid, block, 0, stream>>>(in, out, rows, cols);
    CHECK_LAUNCH();
}
// handout:end padded

// handout:begin fast
// 64 x 64 tiles, 256 threads, 16 elements per thread: more bytes in flight per thread than the
// 32 x 32 kernel, and (when rows and cols are multiples of 4) 16-byte loads and stores, so
// each warp instruction moves 512 bytes.
constexpr int q6_elittsafk = 64;
constexpr int q5_sdaerhttsafk = 256;

template <bool q1_cev>
__global__ void __launch_bounds__(q5_sdaerhttsafk)
q14_lenrek_tsaf_esopsnart(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
    __shared__ float tile[q6_elittsafk][q6_elittsafk + 1];
    const int q12_0r = blockIdx.y * q6_elittsafk, q2_0c = blockIdx.x * q6_elittsafk;
    const int q11_q = threadIdx.x % 16;    // which group of 4 floats along a tile row
    const int row = threadIdx.x / 16;  // 16 tile rows per pass, 4 passes
#pragma unroll
    for (int i = 0; i < q6_elittsafk; i += 16) {
        const int r = q12_0r + row + i, c = q2_0c + 4 * q11_q;
        float* q13_t = &tile[row + i][4 * q11_q];
        if (q1_cev) {  // cols % 4 == 0: c < cols means all four are inside, and 16-byte aligned
            if (r < rows && c < cols) {
                const float4 v = *reinterpret_cast<const float4*>(in + static_cast<size_t>(r) * cols + c);
                q13_t[0] = v.x; q13_t[1] = v.y; q13_t[2] = v.z; q13_t[3] = v.w;
            }
        } else if (r < rows) {
#pragma unroll
            for (int e = 0; e < 4; ++e)
                if (c + e < cols) q13_t[e] = in[static_cast<size_t>(r) * cols + c + e];
        }
    }
    __syncthreads();
#pragma unroll
    for (int i = 0; i < q6_elittsafk; i += 16) {
        const int q8_co = row + i;                        // tile column = row of out
        const int q10_woro = q2_0c + q8_co, q9_loco = q12_0r + 4 * q11_q;   // out is cols x rows
        if (q10_woro >= cols) continue;
        float* o = out + static_cast<size_t>(q10_woro) * rows + q9_loco;
        if (q1_cev) {
            if (q9_loco < rows)
                *reinterpret_cast<float4*>(o) = make_float4(tile[4 * q11_q][q8_co], tile[4 * q11_q + 1][q8_co],
                                                            tile[4 * q11_q + 2][q8_co], tile[4 * q11_q + 3][q8_co]);
        } else {
#pragma unroll
            for (int e = 0; e < 4; ++e)
                if (q9_loco + e < rows) o[e] = tile[4 * q11_q + e][q8_co];
        }
    }
}

void transpose_fast(const float* in, float* out, int rows, int cols, cudaStream_t stream) {
    const dim3 grid((cols + q6_elittsafk - 1) / q6_elittsafk, (rows + q6_elittsafk - 1) / q6_elittsafk);
    // float4 needs every row of in and of out to start on a 16-byte boundary.
    if (rows % 4 == 0 && cols % 4 == 0)
        q14_lenrek_tsaf_esopsnart<true><<<grid, q5_sdaerhttsafk, 0, stream>>>(in, out, rows, cols);
    else
        q14_lenrek_tsaf_esopsnart<false><<<grid, q5_sdaerhttsafk, 0, stream>>>(in, out, rows, cols);
    CHECK_LAUNCH();
}
// handout:end fast
