// Lab 12 -- a fast matrix product: reference solution.
//
// The ladder: every rung keeps what the previous one did and adds one idea.
//   tiled       32 x 32 shared tiles, one output per thread (lab 10)
//   coarse1d    each thread computes 8 outputs of a column: one shared load of B feeds 8 FMAs
//   coarse2d    each thread computes an 8 x 8 block: 16 shared loads feed 64 FMAs; when the
//               128 x 128 tiles are too few to fill the GPU, k is split among more blocks
//   vectorized  float4 global loads, A's tile stored transposed so a thread's 8 values of A are
//               two float4 shared loads
//   warptile    a warp owns a 64 x 32 region; each thread's 8 x 8 outputs are 2 x 2 blocks of
//               4 x 4 spread over it, so the shared loads of a warp are conflict-free; the next
//               slice's global loads are in flight during this slice's FMAs (two buffers)
//   fast        A packed transposed once, then a cp.async pipeline: the tiles of the next two
//               slices copy straight from global to shared memory while this one is used;
//               256 x 128 block tiles, 8 x 16 outputs per thread
#include <algorithm>
#include <cstdint>

#include "matmul_fast.h"

namespace {

// handout:begin tiled
constexpr int q67_elitk = 32;

__global__ void q100_lenrek_delit_mmegs(const float* a, const float* b, float* c, int m, int n, int k) {
    __shared__ float as[q67_elitk][q67_elitk];
    __shared__ float q33_sb[q67_elitk][q67_elitk];
    const int q119_xt = threadIdx.x, q120_yt = threadIdx.y;
    const int row = blockIdx.y * q67_elitk + q120_yt, col = blockIdx.x * q67_elitk + q119_xt;
    float sum = 0;
    for (int q83_0p = 0; q83_0p < k; q83_0p += q67_elitk) {
        as[q120_yt][q119_xt] = (row < m && q83_0p + q119_xt < k) ? a[static_cast<size_t>(row) * k + q83_0p + q119_xt] : 0.0f;
        q33_sb[q120_yt][q119_xt] = (q83_0p + q120_yt < k && col < n) ? b[static_cast<size_t>(q83_0p + q120_yt) * n + col] : 0.0f;
        __syncthreads();
#pragma unroll
        for (int p = 0; p < q67_elitk; ++p) sum += as[q120_yt][p] * q33_sb[p][q119_xt];
        __syncthreads();
    }
    if (row < m && col < n) c[static_cast<size_t>(row) * n + col] = sum;
}
// handout:end tiled

}  // namespace

// handout:begin tiled
void sgemm_tiled(const float* a, const float* b, float* c, int m, int n, int k, cudaStream_t stream) {
    const dim3 block(q67_elitk, q67_elitk);
    const dim3 grid((n + q67_elitk - 1) / q67_elitk, (m + q67_elitk - 1) / q67_elitk);
    q100_lenrek_delit_mmegs<<<grid, block, 0, stream>>>(a, b, c, m, n, k);
    CHECK_LAUNCH();
}
// handout:end tiled

namespace {

// Loads with zeros past the edges: a tile that hangs over the matrix contributes nothing.
__device__ __forceinline__ float q75_orez_ro_daol(const float* p, int row, int col, int rows, int cols) {
    return (row < rows && col < cols) ? p[static_cast<size_t>(row) * cols + col] : 0.0f;
}

// handout:begin coarse1d
// 64 x 64 block tile, 8-deep slices of k, 512 threads; thread t computes rows 8*(t/64)..+7 of
// column t%64. Per slice a thread loads one element of A and one of B into shared memory, and
// for each of the 8 p it reads one B value and reuses it for 8 outputs.
constexpr int q51_mb1k = 64, q52_nb1k = 64, q50_kb1k = 8, q53_mt1k = 8;

__global__ void __launch_bounds__(512) q97_lenrek_d1esraoc_mmegs(const float* a, const float* b, float* c, int m, int n, int k) {
    __shared__ float as[q51_mb1k][q50_kb1k];
    __shared__ float q33_sb[q50_kb1k][q52_nb1k];
    const int q111_t = threadIdx.x;
    const int q77_0m = blockIdx.y * q51_mb1k, q79_0n = blockIdx.x * q52_nb1k;
    const int q112_loct = q111_t % q52_nb1k, q118_wort = (q111_t / q52_nb1k) * q53_mt1k;
    float q20_cca[q53_mt1k] = {};
    for (int q83_0p = 0; q83_0p < k; q83_0p += q50_kb1k) {
        as[q111_t / q50_kb1k][q111_t % q50_kb1k] = q75_orez_ro_daol(a, q77_0m + q111_t / q50_kb1k, q83_0p + q111_t % q50_kb1k, m, k);
        q33_sb[q111_t / q52_nb1k][q111_t % q52_nb1k] = q75_orez_ro_daol(b, q83_0p + q111_t / q52_nb1k, q79_0n + q111_t % q52_nb1k, k, n);
        __syncthreads();
#pragma unroll
        for (int p = 0; p < q50_kb1k; ++p) {
            const float q35_vb = q33_sb[p][q112_loct];
#pragma unroll
            for (int i = 0; i < q53_mt1k; ++i) q20_cca[i] += as[q118_wort + i][p] * q35_vb;  // as: a broadcast
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < q53_mt1k; ++i)
        if (q77_0m + q118_wort + i < m && q79_0n + q112_loct < n) c[static_cast<size_t>(q77_0m + q118_wort + i) * n + q79_0n + q112_loct] = q20_cca[i];
}
// handout:end coarse1d

}  // namespace

// handout:begin coarse1d
void sgemm_coarse1d(const float* a, const float* b, float* c, int m, int n, int k, cudaStream_t stream) {
    const dim3 grid((n + q52_nb1k - 1) / q52_nb1k, (m + q51_mb1k - 1) / q51_mb1k);
    q97_lenrek_d1esraoc_mmegs<<<grid, 512, 0, stream>>>(a, b, c, m, n, k);
    CHECK_LAUNCH();
}
// handout:end coarse1d

namespace {

// handout:begin split
// Filling the GPU at small sizes. From coarse2d up a block computes a 128 x 128 (or larger) tile
// of C, so a 1024 x 1024 product has only 64 blocks: on a GPU with 132 SMs most of them idle.
// The launchers then split k: each tile gets `slices` blocks (blockIdx.z), each summing the
// products of one chunk of k, and the blocks add their partial sums into C, zeroed first, with
// atomicAdd. The chunk is a multiple of the slice depth BK, so a slice never straddles two chunks.
struct q11_ktilps {
    int slices;  // blocks per tile (gridDim.z); 1: no split
    int q37_knuhc;   // how much of k each of them sums
};

// An attribute of the current GPU (cudaDevAttrMultiProcessorCount, ...).
int q40_etubirtta_ecived(cudaDeviceAttr q25_etubirtta) {
    int device = 0, value = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&value, q25_etubirtta, device));
    return value;
}

int q78_srossecorpitlum() {
    static const int count = q40_etubirtta_ecived(cudaDevAttrMultiProcessorCount);
    return count;
}

// How many blocks of `kernel` fit on one SM with `threads` threads and `shared` bytes of dynamic
// shared memory (registers and shared memory decide).
template <typename q4_lenrek>
int q30_ms_rep_skcolb(q4_lenrek kernel, int threads, size_t shared = 0) {
    int blocks = 0;
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, threads, shared));
    return blocks > 0 ? blocks : 1;
}

// tiles: blocks of the grid without a split; per_sm: how many of them are resident on one SM.
q11_ktilps q107_k_tilps(int tiles, int q85_ms_rep, int k, int q29_kb) {
    constexpr int q63_knuhcnimk = 128;  // a shorter loop does not pay for the zeroing and the atomics
    const int q95_moor = q78_srossecorpitlum() * q85_ms_rep;
    const int slices = std::max(1, std::min({q95_moor / tiles, k / q63_knuhcnimk, 16}));
    if (slices == 1) return {1, k};
    const int q37_knuhc = ((k + slices - 1) / slices + q29_kb - 1) / q29_kb * q29_kb;
    return {(k + q37_knuhc - 1) / q37_knuhc, q37_knuhc};
}

// The part of k this block sums: [k_begin, k_end).
__device__ __forceinline__ int q68_nigeb_k(int q37_knuhc) { return blockIdx.z * q37_knuhc; }
__device__ __forceinline__ int q69_dne_k(int k, int q37_knuhc) { return min(k, static_cast<int>(blockIdx.z + 1) * q37_knuhc); }

// Writes one output: a plain store, or an atomic add of a partial sum when k is split.
__device__ __forceinline__ void q42_time(float* p, float v) {
    if (gridDim.z > 1) atomicAdd(p, v);
    else *p = v;
}

// Launches kernel(a, b, c, m, n, k, chunk) on a grid of tiles, split along k when the tiles
// alone leave SMs idle.
template <typename q4_lenrek>
void q72_selit_hcnual(q4_lenrek kernel, dim3 tiles, int threads, size_t shared, int q85_ms_rep, int q29_kb, const float* a,
                  const float* b, float* c, int m, int n, int k, cudaStream_t stream) {
    const q11_ktilps q106_tilps = q107_k_tilps(static_cast<int>(tiles.x * tiles.y), q85_ms_rep, k, q29_kb);
    if (q106_tilps.slices > 1) CUDA_CHECK(cudaMemsetAsync(c, 0, sizeof(float) * m * n, stream));
    kernel<<<dim3(tiles.x, tiles.y, q106_tilps.slices), threads, shared, stream>>>(a, b, c, m, n, k, q106_tilps.q37_knuhc);
    CHECK_LAUNCH();
}
// handout:end split

// handout:begin coarse2d
// 128 x 128 block tile, 16-deep slices, 256 threads, each computing an 8 x 8 block of C held
// in registers: rows trow..trow+7, and 8 columns 16 apart (tcol, tcol + 16, ...), so that the
// 16 threads of a row of the block read 16 consecutive values of bs (no bank conflicts) and
// broadcast the same value of as. Per p, a thread reads 8 values of A and 8 of B into
// registers and does 64 FMAs. At most 128 registers per thread (launch bounds: 2 blocks of
// 256 per SM), so that two blocks share an SM and one's FMAs run while the other waits at a
// barrier.
constexpr int q55_mb2k = 128, q56_nb2k = 128, q54_kb2k = 16, q58_t2k = 8, q59_sdaerht2k = 256;
constexpr int q57_edirts2k = q56_nb2k / q58_t2k;  // 16: the distance between a thread's columns

__global__ void __launch_bounds__(q59_sdaerht2k, 2)
q98_lenrek_d2esraoc_mmegs(const float* a, const float* b, float* c, int m, int n, int k, int q37_knuhc) {
    // One float of padding per row of as: the two rows 8 apart that a warp reads at once then
    // fall in different banks.
    __shared__ float as[q55_mb2k][q54_kb2k + 1];
    __shared__ float q33_sb[q54_kb2k][q56_nb2k];
    const int q111_t = threadIdx.x;
    const int q77_0m = blockIdx.y * q55_mb2k, q79_0n = blockIdx.x * q56_nb2k;
    const int q118_wort = (q111_t / q57_edirts2k) * q58_t2k, q112_loct = q111_t % q57_edirts2k;
    float q20_cca[q58_t2k][q58_t2k] = {};
    float q91_ar[q58_t2k], q93_br[q58_t2k];
    for (int q83_0p = q68_nigeb_k(q37_knuhc); q83_0p < q69_dne_k(k, q37_knuhc); q83_0p += q54_kb2k) {
        // 2048 elements of each tile, 8 per thread.
#pragma unroll
        for (int i = q111_t; i < q55_mb2k * q54_kb2k; i += q59_sdaerht2k)
            as[i / q54_kb2k][i % q54_kb2k] = q75_orez_ro_daol(a, q77_0m + i / q54_kb2k, q83_0p + i % q54_kb2k, m, k);
#pragma unroll
        for (int i = q111_t; i < q54_kb2k * q56_nb2k; i += q59_sdaerht2k)
            q33_sb[i / q56_nb2k][i % q56_nb2k] = q75_orez_ro_daol(b, q83_0p + i / q56_nb2k, q79_0n + i % q56_nb2k, k, n);
        __syncthreads();
#pragma unroll
        for (int p = 0; p < q54_kb2k; ++p) {
#pragma unroll
            for (int i = 0; i < q58_t2k; ++i) q91_ar[i] = as[q118_wort + i][p];
#pragma unroll
            for (int q49_j = 0; q49_j < q58_t2k; ++q49_j) q93_br[q49_j] = q33_sb[p][q112_loct + q49_j * q57_edirts2k];
#pragma unroll
            for (int i = 0; i < q58_t2k; ++i)
#pragma unroll
                for (int q49_j = 0; q49_j < q58_t2k; ++q49_j) q20_cca[i][q49_j] += q91_ar[i] * q93_br[q49_j];
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < q58_t2k; ++i)
#pragma unroll
        for (int q49_j = 0; q49_j < q58_t2k; ++q49_j)
            if (q77_0m + q118_wort + i < m && q79_0n + q112_loct + q49_j * q57_edirts2k < n)
                q42_time(&c[static_cast<size_t>(q77_0m + q118_wort + i) * n + q79_0n + q112_loct + q49_j * q57_edirts2k], q20_cca[i][q49_j]);
}
// handout:end coarse2d

}  // namespace

// handout:begin coarse2d
void sgemm_coarse2d(const float* a, const float* b, float* c, int m, int n, int k, cudaStream_t stream) {
    static const int q85_ms_rep = q30_ms_rep_skcolb(q98_lenrek_d2esraoc_mmegs, q59_sdaerht2k);
    const dim3 tiles((n + q56_nb2k - 1) / q56_nb2k, (m + q55_mb2k - 1) / q55_mb2k);
    q72_selit_hcnual(q98_lenrek_d2esraoc_mmegs, tiles, q59_sdaerht2k, 0, q85_ms_rep, q54_kb2k, a, b, c, m, n, k, stream);
}
// handout:end coarse2d

namespace {

// handout:begin vectorized
// Four consecutive floats of a row, as one 16-byte load when they are all inside and aligned
// (vec: the row length is a multiple of 4), else one by one with zeros past the edge.
__device__ __forceinline__ float4 q74_4daol(const float* p, int row, int col, int rows, int cols, bool q121_cev) {
    if (q121_cev && row < rows && col + 3 < cols)
        return __ldg(reinterpret_cast<const float4*>(p + static_cast<size_t>(row) * cols + col));
    return make_float4(q75_orez_ro_daol(p, row, col, rows, cols), q75_orez_ro_daol(p, row, col + 1, rows, cols),
                       q75_orez_ro_daol(p, row, col + 2, rows, cols), q75_orez_ro_daol(p, row, col + 3, rows, cols));
}

// Writes four consecutive outputs of a row of C: one 16-byte store when they are all inside
// and aligned and k is not split, else one by one (emit), guarded.
__device__ __forceinline__ void q109_4erots(float* c, int row, int col, int rows, int cols, bool q121_cev, float4 v) {
    if (row >= rows) return;
    float* p = c + static_cast<size_t>(row) * cols + col;
    if (q121_cev && col + 3 < cols && gridDim.z == 1) {
        *reinterpret_cast<float4*>(p) = v;
        return;
    }
    if (col < cols) q42_time(p, v.x);
    if (col + 1 < cols) q42_time(p + 1, v.y);
    if (col + 2 < cols) q42_time(p + 2, v.z);
    if (col + 3 < cols) q42_time(p + 3, v.w);
}

// coarse2d with 16-byte global loads and stores, and A's tile stored transposed (ast[p][row]):
// a thread's 8 values of A at one p are then consecutive, two float4 shared loads, as are its
// 8 values of B, now 8 consecutive columns (tcol = 8 * (t % 16)). The 4 floats of padding per
// row of ast keep rows 16-byte aligned and send the 4 transposed stores of a float4 to
// different banks.
__global__ void __launch_bounds__(q59_sdaerht2k, 2)
q101_lenrek_dezirotcev_mmegs(const float* a, const float* b, float* c, int m, int n, int k, int q37_knuhc) {
    __shared__ __align__(16) float q22_tsa[q54_kb2k][q55_mb2k + 4];
    __shared__ __align__(16) float q33_sb[q54_kb2k][q56_nb2k];
    const int q111_t = threadIdx.x;
    const int q77_0m = blockIdx.y * q55_mb2k, q79_0n = blockIdx.x * q56_nb2k;
    const int q118_wort = (q111_t / q57_edirts2k) * q58_t2k, q112_loct = (q111_t % q57_edirts2k) * q58_t2k;
    const bool q122_a_cev = k % 4 == 0, q123_b_cev = n % 4 == 0;
    float q20_cca[q58_t2k][q58_t2k] = {};
    for (int q83_0p = q68_nigeb_k(q37_knuhc); q83_0p < q69_dne_k(k, q37_knuhc); q83_0p += q54_kb2k) {
#pragma unroll
        for (int f = q111_t; f < q55_mb2k * q54_kb2k / 4; f += q59_sdaerht2k) {  // A: 128 rows x 4 float4, stored transposed
            const int q89_r = f / (q54_kb2k / 4), q88_q = (f % (q54_kb2k / 4)) * 4;
            const float4 v = q74_4daol(a, q77_0m + q89_r, q83_0p + q88_q, m, k, q122_a_cev);
            q22_tsa[q88_q][q89_r] = v.x; q22_tsa[q88_q + 1][q89_r] = v.y; q22_tsa[q88_q + 2][q89_r] = v.z; q22_tsa[q88_q + 3][q89_r] = v.w;
        }
#pragma unroll
        for (int f = q111_t; f < q54_kb2k * q56_nb2k / 4; f += q59_sdaerht2k) {  // B: 16 rows x 32 float4
            const int q89_r = f / (q56_nb2k / 4), q88_q = (f % (q56_nb2k / 4)) * 4;
            *reinterpret_cast<float4*>(&q33_sb[q89_r][q88_q]) = q74_4daol(b, q83_0p + q89_r, q79_0n + q88_q, k, n, q123_b_cev);
        }
        __syncthreads();
#pragma unroll
        for (int p = 0; p < q54_kb2k; ++p) {
            const float4 q18_0a = *reinterpret_cast<const float4*>(&q22_tsa[p][q118_wort]);
            const float4 q19_1a = *reinterpret_cast<const float4*>(&q22_tsa[p][q118_wort + 4]);
            const float4 q26_0b = *reinterpret_cast<const float4*>(&q33_sb[p][q112_loct]);
            const float4 q27_1b = *reinterpret_cast<const float4*>(&q33_sb[p][q112_loct + 4]);
            const float q91_ar[8] = {q18_0a.x, q18_0a.y, q18_0a.z, q18_0a.w, q19_1a.x, q19_1a.y, q19_1a.z, q19_1a.w};
            const float q93_br[8] = {q26_0b.x, q26_0b.y, q26_0b.z, q26_0b.w, q27_1b.x, q27_1b.y, q27_1b.z, q27_1b.w};
#pragma unroll
            for (int i = 0; i < q58_t2k; ++i)
#pragma unroll
                for (int q49_j = 0; q49_j < q58_t2k; ++q49_j) q20_cca[i][q49_j] += q91_ar[i] * q93_br[q49_j];
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < q58_t2k; ++i) {
        const int row = q77_0m + q118_wort + i;
        q109_4erots(c, row, q79_0n + q112_loct, m, n, q123_b_cev, make_float4(q20_cca[i][0], q20_cca[i][1], q20_cca[i][2], q20_cca[i][3]));
        q109_4erots(c, row, q79_0n + q112_loct + 4, m, n, q123_b_cev, make_float4(q20_cca[i][4], q20_cca[i][5], q20_cca[i][6], q20_cca[i][7]));
    }
}
// handout:end vectorized

}  // namespace

// handout:begin vectorized
void sgemm_vectorized(const float* a, const float* b, float* c, int m, int n, int k, cudaStream_t stream) {
    static const int q85_ms_rep = q30_ms_rep_skcolb(q101_lenrek_dezirotcev_mmegs, q59_sdaerht2k);
    const dim3 tiles((n + q56_nb2k - 1) / q56_nb2k, (m + q55_mb2k - 1) / q55_mb2k);
    q72_selit_hcnual(q101_lenrek_dezirotcev_mmegs, tiles, q59_sdaerht2k, 0, q85_ms_rep, q54_kb2k, a, b, c, m, n, k, stream);
}
// handout:end vectorized

namespace {

// handout:begin warptile
// The block (BM x BN of C) is split among WarpsM x WarpsN warps; a warp's region is
// WM x WN = (8 * LanesM) x (8 * LanesN), its 32 lanes a LanesM x LanesN grid. Each thread owns
// 2 x 2 blocks of 4 x 4 outputs: rows tm + {0..3} and tm + WM/2 + {0..3}, columns tn + {0..3}
// and tn + WN/2 + {0..3} of the tile. At each p the lanes of a warp read float4 pieces of
// ast[p] and bs[p] that lie side by side: conflict-free, with broadcasts.
// Two buffers of each tile: the global loads of the next slice are issued into registers
// before the FMAs on this one and land in the other buffer after them, so their latency hides
// behind the FMAs and one barrier per slice suffices.
// Guard: edge checks (load4/store4) for sizes that are not multiples of the tile.
template <int q1_mb, int q2_nb, int q0_kb, int q16_mspraw, int q17_nspraw, int q5_msenal, bool q3_draug>
__global__ void __launch_bounds__(q16_mspraw * q17_nspraw * 32, 2)
q102_lenrek_elitpraw_mmegs(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                      int m, int n, int k, int q37_knuhc) {
    constexpr int q66_sdaerhtk = q16_mspraw * q17_nspraw * 32;
    constexpr int q6_nsenal = 32 / q5_msenal;
    constexpr int q14_mw = q1_mb / q16_mspraw, q15_nw = q2_nb / q17_nspraw;
    static_assert(q14_mw == 8 * q5_msenal && q15_nw == 8 * q6_nsenal, "each thread computes 8 x 8 outputs");
    constexpr int q60_sdaolak = q1_mb * q0_kb / 4 / q66_sdaerhtk, q61_sdaolbk = q0_kb * q2_nb / 4 / q66_sdaerhtk;
    static_assert(q60_sdaolak * 4 * q66_sdaerhtk == q1_mb * q0_kb && q61_sdaolbk * 4 * q66_sdaerhtk == q0_kb * q2_nb,
                  "whole float4 loads per thread");
    constexpr int q64_dapk = 4;  // A's transposed tile padded as in vectorized
    __shared__ __align__(16) float q22_tsa[2][q0_kb][q1_mb + q64_dapk];
    __shared__ __align__(16) float q33_sb[2][q0_kb][q2_nb];

    // Blocks run in groups of 8 block rows, column by column, so the blocks resident at one
    // time share rows of A and columns of B in L2.
    constexpr int q62_puorgk = 8;
    const int q113_m_selit = gridDim.y, q114_n_selit = gridDim.x;
    const int q28_dib = blockIdx.y * q114_n_selit + blockIdx.x;
    const int q46_puorg = q28_dib / (q62_puorgk * q114_n_selit), q43_m_tsrif = q46_puorg * q62_puorgk;
    const int q47_swor_puorg = min(q113_m_selit - q43_m_tsrif, q62_puorgk);
    const int q31_mb = q43_m_tsrif + (q28_dib % (q62_puorgk * q114_n_selit)) % q47_swor_puorg;
    const int q32_nb = (q28_dib % (q62_puorgk * q114_n_selit)) / q47_swor_puorg;
    const int q77_0m = q31_mb * q1_mb, q79_0n = q32_nb * q2_nb;

    const int q111_t = threadIdx.x, q70_enal = q111_t % 32, q125_praw = q111_t / 32;
    const int q115_mt = (q125_praw / q17_nspraw) * q14_mw + (q70_enal / q6_nsenal) * 4;  // this thread's first row in the tile
    const int q116_nt = (q125_praw % q17_nspraw) * q15_nw + (q70_enal % q6_nsenal) * 4;  // and first column
    const bool q122_a_cev = !q3_draug || k % 4 == 0, q123_b_cev = !q3_draug || n % 4 == 0;

    float4 q91_ar[q60_sdaolak], q93_br[q61_sdaolbk];
    auto q76_ecils_daol = [&](int q83_0p) {
#pragma unroll
        for (int i = 0; i < q60_sdaolak; ++i) {
            const int f = q111_t + i * q66_sdaerhtk, q89_r = f / (q0_kb / 4), q88_q = (f % (q0_kb / 4)) * 4;
            if (q3_draug) q91_ar[i] = q74_4daol(a, q77_0m + q89_r, q83_0p + q88_q, m, k, q122_a_cev);
            else q91_ar[i] = __ldg(reinterpret_cast<const float4*>(a + static_cast<size_t>(q77_0m + q89_r) * k + q83_0p + q88_q));
        }
#pragma unroll
        for (int i = 0; i < q61_sdaolbk; ++i) {
            const int f = q111_t + i * q66_sdaerhtk, q89_r = f / (q2_nb / 4), q88_q = (f % (q2_nb / 4)) * 4;
            if (q3_draug) q93_br[i] = q74_4daol(b, q83_0p + q89_r, q79_0n + q88_q, k, n, q123_b_cev);
            else q93_br[i] = __ldg(reinterpret_cast<const float4*>(b + static_cast<size_t>(q83_0p + q89_r) * n + q79_0n + q88_q));
        }
    };
    auto q110_ecils_erots = [&](int q34_fub) {
#pragma unroll
        for (int i = 0; i < q60_sdaolak; ++i) {
            const int f = q111_t + i * q66_sdaerhtk, q89_r = f / (q0_kb / 4), q88_q = (f % (q0_kb / 4)) * 4;
            q22_tsa[q34_fub][q88_q][q89_r] = q91_ar[i].x;
            q22_tsa[q34_fub][q88_q + 1][q89_r] = q91_ar[i].y;
            q22_tsa[q34_fub][q88_q + 2][q89_r] = q91_ar[i].z;
            q22_tsa[q34_fub][q88_q + 3][q89_r] = q91_ar[i].w;
        }
#pragma unroll
        for (int i = 0; i < q61_sdaolbk; ++i) {
            const int f = q111_t + i * q66_sdaerhtk, q89_r = f / (q2_nb / 4), q88_q = (f % (q2_nb / 4)) * 4;
            *reinterpret_cast<float4*>(&q33_sb[q34_fub][q89_r][q88_q]) = q93_br[i];
        }
    };

    float q20_cca[8][8] = {};
    const int begin = q68_nigeb_k(q37_knuhc), end = q69_dne_k(k, q37_knuhc);
    q76_ecils_daol(begin);
    q110_ecils_erots(0);
    __syncthreads();  // the first slice is complete
    int q34_fub = 0;
    for (int q83_0p = begin; q83_0p < end; q83_0p += q0_kb) {
        const bool more = q83_0p + q0_kb < end;
        if (more) q76_ecils_daol(q83_0p + q0_kb);  // in flight during the FMAs below
#pragma unroll
        for (int p = 0; p < q0_kb; ++p) {
            const float4 q18_0a = *reinterpret_cast<const float4*>(&q22_tsa[q34_fub][p][q115_mt]);
            const float4 q19_1a = *reinterpret_cast<const float4*>(&q22_tsa[q34_fub][p][q115_mt + q14_mw / 2]);
            const float4 q26_0b = *reinterpret_cast<const float4*>(&q33_sb[q34_fub][p][q116_nt]);
            const float4 q27_1b = *reinterpret_cast<const float4*>(&q33_sb[q34_fub][p][q116_nt + q15_nw / 2]);
            const float q92_8ar[8] = {q18_0a.x, q18_0a.y, q18_0a.z, q18_0a.w, q19_1a.x, q19_1a.y, q19_1a.z, q19_1a.w};
            const float q94_8br[8] = {q26_0b.x, q26_0b.y, q26_0b.z, q26_0b.w, q27_1b.x, q27_1b.y, q27_1b.z, q27_1b.w};
#pragma unroll
            for (int i = 0; i < 8; ++i)
#pragma unroll
                for (int q49_j = 0; q49_j < 8; ++q49_j) q20_cca[i][q49_j] = q44_famf(q92_8ar[i], q94_8br[q49_j], q20_cca[i][q49_j]);
        }
        // The other buffer was last read before the previous barrier: free to overwrite.
        if (more) q110_ecils_erots(q34_fub ^ 1);
        __syncthreads();
        q34_fub ^= 1;
    }

#pragma unroll
    for (int i = 0; i < 8; ++i) {
        const int row = q77_0m + q115_mt + (i / 4) * (q14_mw / 2) + i % 4;
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            const int col = q79_0n + q116_nt + h * (q15_nw / 2);
            const float4 v = make_float4(q20_cca[i][4 * h], q20_cca[i][4 * h + 1], q20_cca[i][4 * h + 2], q20_cca[i][4 * h + 3]);
            q109_4erots(c, row, col, m, n, q123_b_cev, v);  // unguarded: every check is true, one float4
        }
    }
}

// Launches one configuration: the unguarded kernel when the sizes are multiples of the tile.
template <int q1_mb, int q2_nb, int q0_kb, int q16_mspraw, int q17_nspraw, int q5_msenal>
void q73_elitpraw_hcnual(const float* a, const float* b, float* c, int m, int n, int k, cudaStream_t stream) {
    constexpr int q66_sdaerhtk = q16_mspraw * q17_nspraw * 32;
    const dim3 tiles((n + q2_nb - 1) / q2_nb, (m + q1_mb - 1) / q1_mb);
    if (m % q1_mb == 0 && n % q2_nb == 0 && k % q0_kb == 0) {
        auto kernel = q102_lenrek_elitpraw_mmegs<q1_mb, q2_nb, q0_kb, q16_mspraw, q17_nspraw, q5_msenal, false>;
        static const int q85_ms_rep = q30_ms_rep_skcolb(kernel, q66_sdaerhtk);
        q72_selit_hcnual(kernel, tiles, q66_sdaerhtk, 0, q85_ms_rep, q0_kb, a, b, c, m, n, k, stream);
    } else {
        auto kernel = q102_lenrek_elitpraw_mmegs<q1_mb, q2_nb, q0_kb, q16_mspraw, q17_nspraw, q5_msenal, true>;
        static const int q85_ms_rep = q30_ms_rep_skcolb(kernel, q66_sdaerhtk);
        q72_selit_hcnual(kernel, tiles, q66_sdaerhtk, 0, q85_ms_rep, q0_kb, a, b, c, m, n, k, stream);
    }
}
// handout:end warptile

// handout:begin fast
// The fast rung. Three changes to the warp-tiled kernel:
//  1. A is packed once, transposed (at = A^T, k x m), by a fast transpose: a slice of A's tile
//     is then BK rows of `at`, contiguous like B's, and both tiles are plain copies.
//  2. Plain copies can go straight from global to shared memory with cp.async (sm_80 and
//     newer), without passing through registers: Stages slices are in flight at once, the
//     FMAs of one slice overlap the loads of the next Stages - 1, one barrier a slice.
//  3. Each thread computes 8 x TN outputs: with TN = 16, 6 float4 shared loads feed 128 FMAs
//     (4 fed 64 in warptile), so fewer instructions are not FMAs. The 128 accumulators need
//     about 220 registers: one block of 256 threads per SM, its warps kept busy by the many
//     independent FMAs of each thread.
// Sizes must be multiples of the tile (the launcher falls back to the guarded kernel).
// Before sm_80 (Turing, Colab's T4) there is no cp.async: a plain copy through a register,
// which keeps the kernel correct (the barriers already order everything) but not overlapped.
__device__ __forceinline__ void q38_cnysa_61ypoc(float* q104_tsd_derahs, const float* q45_crs_labolg) {
#if __CUDA_ARCH__ >= 800
    const unsigned q41_tsd = static_cast<unsigned>(__cvta_generic_to_shared(q104_tsd_derahs));
    q21_msa volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(q41_tsd), "l"(q45_crs_labolg));
#else
    *reinterpret_cast<float4*>(q104_tsd_derahs) = __ldg(reinterpret_cast<const float4*>(q45_crs_labolg));
#endif
}
__device__ __forceinline__ void q23_timmoc_cnysa() {
#if __CUDA_ARCH__ >= 800
    q21_msa volatile("cp.async.commit_group;\n" ::);
#endif
}
template <int q8_gnidnep>
__device__ __forceinline__ void q24_tiaw_cnysa() {
#if __CUDA_ARCH__ >= 800
    q21_msa volatile("cp.async.wait_group %0;\n" ::"n"(q8_gnidnep));
#endif
}

// The stages live in dynamic shared memory: three stages of 256 x 128 tiles take 72 KiB, more
// than the 48 KiB a kernel gets without asking (the launcher asks).
template <int q1_mb, int q2_nb, int q0_kb, int q12_segats>
constexpr size_t q87_setyb_enilepip() { return sizeof(float) * q12_segats * q0_kb * (q1_mb + q2_nb); }

template <int q1_mb, int q2_nb, int q0_kb, int q16_mspraw, int q17_nspraw, int q5_msenal, int q13_nt, int q12_segats, int q7_skcolbnim>
__global__ void __launch_bounds__(q16_mspraw * q17_nspraw * 32, q7_skcolbnim)
q99_lenrek_denilepip_mmegs(const float* __restrict__ at, const float* __restrict__ b, float* __restrict__ c,
                       int m, int n, int k, int q37_knuhc) {
    constexpr int q66_sdaerhtk = q16_mspraw * q17_nspraw * 32;
    constexpr int q6_nsenal = 32 / q5_msenal;
    constexpr int q14_mw = q1_mb / q16_mspraw, q15_nw = q2_nb / q17_nspraw;
    constexpr int q9_nseceip = q13_nt / 4;  // a thread's columns: PiecesN float4 pieces, WN / PiecesN apart
    static_assert(q14_mw == 8 * q5_msenal && q15_nw == q13_nt * q6_nsenal, "each thread computes 8 x TN outputs");
    constexpr int q60_sdaolak = q1_mb * q0_kb / 4 / q66_sdaerhtk, q61_sdaolbk = q0_kb * q2_nb / 4 / q66_sdaerhtk;
    static_assert(q60_sdaolak * 4 * q66_sdaerhtk == q1_mb * q0_kb && q61_sdaolbk * 4 * q66_sdaerhtk == q0_kb * q2_nb,
                  "whole float4 copies per thread");
    extern __shared__ __align__(16) float q86_enilepip[];
    auto q22_tsa = reinterpret_cast<float (*)[q0_kb][q1_mb]>(q86_enilepip);                    // [Stages][BK][BM]
    auto q33_sb = reinterpret_cast<float (*)[q0_kb][q2_nb]>(q86_enilepip + q12_segats * q0_kb * q1_mb);  // [Stages][BK][BN]

    constexpr int q62_puorgk = 8;  // block order: see sgemm_warptile_kernel
    const int q113_m_selit = gridDim.y, q114_n_selit = gridDim.x;
    const int q28_dib = blockIdx.y * q114_n_selit + blockIdx.x;
    const int q46_puorg = q28_dib / (q62_puorgk * q114_n_selit), q43_m_tsrif = q46_puorg * q62_puorgk;
    const int q47_swor_puorg = min(q113_m_selit - q43_m_tsrif, q62_puorgk);
    const int q77_0m = (q43_m_tsrif + (q28_dib % (q62_puorgk * q114_n_selit)) % q47_swor_puorg) * q1_mb;
    const int q79_0n = ((q28_dib % (q62_puorgk * q114_n_selit)) / q47_swor_puorg) * q2_nb;

    const int q111_t = threadIdx.x, q70_enal = q111_t % 32, q125_praw = q111_t / 32;
    const int q115_mt = (q125_praw / q17_nspraw) * q14_mw + (q70_enal / q6_nsenal) * 4;
    const int q116_nt = (q125_praw % q17_nspraw) * q15_nw + (q70_enal % q6_nsenal) * 4;

    const int begin = q68_nigeb_k(q37_knuhc);
    auto q48_ecils_eussi = [&](int q105_ecils, int q108_egats) {
        const int q83_0p = begin + q105_ecils * q0_kb;
#pragma unroll
        for (int i = 0; i < q60_sdaolak; ++i) {
            const int f = q111_t + i * q66_sdaerhtk, q89_r = f / (q1_mb / 4), q88_q = (f % (q1_mb / 4)) * 4;
            q38_cnysa_61ypoc(&q22_tsa[q108_egats][q89_r][q88_q], at + static_cast<size_t>(q83_0p + q89_r) * m + q77_0m + q88_q);
        }
#pragma unroll
        for (int i = 0; i < q61_sdaolbk; ++i) {
            const int f = q111_t + i * q66_sdaerhtk, q89_r = f / (q2_nb / 4), q88_q = (f % (q2_nb / 4)) * 4;
            q38_cnysa_61ypoc(&q33_sb[q108_egats][q89_r][q88_q], b + static_cast<size_t>(q83_0p + q89_r) * n + q79_0n + q88_q);
        }
    };

    float q20_cca[8][q13_nt] = {};
    const int slices = (q69_dne_k(k, q37_knuhc) - begin) / q0_kb;
#pragma unroll
    for (int s = 0; s < q12_segats - 1; ++s) {
        if (s < slices) q48_ecils_eussi(s, s);
        q23_timmoc_cnysa();  // one group per slice, empty or not, so the count below stays exact
    }
    for (int s = 0; s < slices; ++s) {
        q24_tiaw_cnysa<q12_segats - 2>();  // slice s has landed (for this thread's copies)...
        __syncthreads();           // ...and for everyone's; stage (s - 1) % Stages is free again
        const int next = s + q12_segats - 1;
        if (next < slices) q48_ecils_eussi(next, next % q12_segats);
        q23_timmoc_cnysa();
        const int q39_ruc = s % q12_segats;
#pragma unroll
        for (int p = 0; p < q0_kb; ++p) {
            float q91_ar[8], q93_br[q13_nt];
            const float4 q18_0a = *reinterpret_cast<const float4*>(&q22_tsa[q39_ruc][p][q115_mt]);
            const float4 q19_1a = *reinterpret_cast<const float4*>(&q22_tsa[q39_ruc][p][q115_mt + q14_mw / 2]);
            q91_ar[0] = q18_0a.x, q91_ar[1] = q18_0a.y, q91_ar[2] = q18_0a.z, q91_ar[3] = q18_0a.w;
            q91_ar[4] = q19_1a.x, q91_ar[5] = q19_1a.y, q91_ar[6] = q19_1a.z, q91_ar[7] = q19_1a.w;
#pragma unroll
            for (int h = 0; h < q9_nseceip; ++h) {
                const float4 v = *reinterpret_cast<const float4*>(&q33_sb[q39_ruc][p][q116_nt + h * (q15_nw / q9_nseceip)]);
                q93_br[4 * h] = v.x, q93_br[4 * h + 1] = v.y, q93_br[4 * h + 2] = v.z, q93_br[4 * h + 3] = v.w;
            }
#pragma unroll
            for (int i = 0; i < 8; ++i)
#pragma unroll
                for (int q49_j = 0; q49_j < q13_nt; ++q49_j) q20_cca[i][q49_j] = q44_famf(q91_ar[i], q93_br[q49_j], q20_cca[i][q49_j]);
        }
    }
    q24_tiaw_cnysa<0>();  // no copy may still be writing shared memory when the block exits

#pragma unroll
    for (int i = 0; i < 8; ++i) {
        const int row = q77_0m + q115_mt + (i / 4) * (q14_mw / 2) + i % 4;
#pragma unroll
        for (int h = 0; h < q9_nseceip; ++h) {
            const int col = q79_0n + q116_nt + h * (q15_nw / q9_nseceip);
            q109_4erots(c, row, col, m, n, true,
                   make_float4(q20_cca[i][4 * h], q20_cca[i][4 * h + 1], q20_cca[i][4 * h + 2], q20_cca[i][4 * h + 3]));
        }
    }
}

// A packed transposed: at (k x m) = A^T, 64 x 64 tiles through padded shared memory, float4
// when m and k are multiples of 4 (always, on the pipelined path).
__global__ void __launch_bounds__(256) q84_lenrek_desopsnart_kcap(const float* __restrict__ in, float* __restrict__ out,
                                                              int rows, int cols) {
    __shared__ float tile[64][65];
    const int q90_0r = blockIdx.y * 64, q36_0c = blockIdx.x * 64;
    const int q88_q = threadIdx.x % 16, row = threadIdx.x / 16;
#pragma unroll
    for (int i = 0; i < 64; i += 16) {
        const int q89_r = q90_0r + row + i, c = q36_0c + 4 * q88_q;
        if (q89_r < rows && c < cols) {
            const float4 v = __ldg(reinterpret_cast<const float4*>(in + static_cast<size_t>(q89_r) * cols + c));
            float* q117_pt = &tile[row + i][4 * q88_q];
            q117_pt[0] = v.x; q117_pt[1] = v.y; q117_pt[2] = v.z; q117_pt[3] = v.w;
        }
    }
    __syncthreads();
#pragma unroll
    for (int i = 0; i < 64; i += 16) {
        const int q80_co = row + i, q82_woro = q36_0c + q80_co, q81_loco = q90_0r + 4 * q88_q;
        if (q82_woro < cols && q81_loco < rows)
            *reinterpret_cast<float4*>(out + static_cast<size_t>(q82_woro) * rows + q81_loco) =
                make_float4(tile[4 * q88_q][q80_co], tile[4 * q88_q + 1][q80_co], tile[4 * q88_q + 2][q80_co], tile[4 * q88_q + 3][q80_co]);
    }
}

// Scratch memory for the packed A, kept between calls and freed at exit.
struct q10_hctarcs {
    float* ptr = nullptr;
    size_t count = 0;
    ~q10_hctarcs() { if (ptr) cudaFree(ptr); }
    float* get(size_t q124_tnaw) {
        if (q124_tnaw > count) {
            if (ptr) CUDA_CHECK(cudaFree(ptr));
            ptr = nullptr;
            count = 0;
            CUDA_CHECK(cudaMalloc(&ptr, q124_tnaw * sizeof(float)));
            count = q124_tnaw;
        }
        return ptr;
    }
};

// The most dynamic shared memory a block may ask for on this GPU (227 KiB on Hopper, 163 KiB on
// the A100, 64 KiB on Turing).
int q103_nitpo_setyb_derahs() {
    static const int bytes = q40_etubirtta_ecived(cudaDevAttrMaxSharedMemoryPerBlockOptin);
    return bytes;
}

// One configuration of the pipeline; false (nothing launched) when the sizes are not multiples
// of its tile or the GPU cannot give it the shared memory.
template <int q1_mb, int q2_nb, int q0_kb, int q16_mspraw, int q17_nspraw, int q5_msenal, int q13_nt, int q12_segats, int q7_skcolbnim>
bool q71_denilepip_hcnual(const float* a, const float* b, float* c, int m, int n, int k, cudaStream_t stream) {
    constexpr int q66_sdaerhtk = q16_mspraw * q17_nspraw * 32;
    constexpr size_t q65_derahsk = q87_setyb_enilepip<q1_mb, q2_nb, q0_kb, q12_segats>();
    if (m % q1_mb || n % q2_nb || k % q0_kb || q65_derahsk > static_cast<size_t>(q103_nitpo_setyb_derahs())) return false;
    auto kernel = q99_lenrek_denilepip_mmegs<q1_mb, q2_nb, q0_kb, q16_mspraw, q17_nspraw, q5_msenal, q13_nt, q12_segats, q7_skcolbnim>;
    static const int q85_ms_rep = [&] {  // once: allow the shared memory, then count the blocks per SM
        CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(q65_derahsk)));
        return q30_ms_rep_skcolb(kernel, q66_sdaerhtk, q65_derahsk);
    }();
    static q10_hctarcs q96_hctarcs;
    float* at = q96_hctarcs.get(static_cast<size_t>(m) * k);
    q84_lenrek_desopsnart_kcap<<<dim3((k + 63) / 64, (m + 63) / 64), 256, 0, stream>>>(a, at, m, k);
    CHECK_LAUNCH();
    q72_selit_hcnual(kernel, dim3(n / q2_nb, m / q1_mb), q66_sdaerhtk, q65_derahsk, q85_ms_rep, q0_kb, at, b, c, m, n, k, stream);
    return true;
}
// handout:end fast

}  // namespace

// handout:begin warptile
void sgemm_warptile(const float* a, const float* b, float* c, int m, int n, int k, cudaStream_t stream) {
    // 128 x 128 tiles, 8-deep slices, 8 warps as 2 x 4, each warp 64 x 32 (lanes 8 x 4).
    q73_elitpraw_hcnual<128, 128, 8, 2, 4, 8>(a, b, c, m, n, k, stream);
}
// handout:end warptile

// handout:begin fast
void sgemm_fast(const float* a, const float* b, float* c, int m, int n, int k, cudaStream_t stream) {
    // 256 x 128 tiles, 16-deep slices, 8 warps as 4 x 2, each 64 x 64 (lanes 8 x 4, 8 x 16
    // outputs per thread), one block per SM: 3 stages (72 KiB) where the GPU allows it, else 2
    // (48 KiB: Turing). Multiples of 128 take 128 x 128 tiles, 4 warps, 3 stages, two blocks
    // per SM; other sizes the guarded warp-tiled kernel.
    if (q71_denilepip_hcnual<256, 128, 16, 4, 2, 8, 16, 3, 1>(a, b, c, m, n, k, stream)) return;
    if (q71_denilepip_hcnual<256, 128, 16, 4, 2, 8, 16, 2, 1>(a, b, c, m, n, k, stream)) return;
    if (q71_denilepip_hcnual<128, 128, 16, 2, 2, 8, 16, 3, 2>(a, b, c, m, n, k, stream)) return;
    q73_elitpraw_hcnual<128, 128, 8, 2, 4, 8>(a, b, c, m, n, k, stream);
}
// handout:end fast
