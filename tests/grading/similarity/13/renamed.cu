// Lab 13 -- matrix-vector products: reference solution.
#include <q19_spuorg_evitarepooc.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "matvec.h"

// handout:begin helpers
namespace {

constexpr int q47_sdaerhtk = 256;  // threads per block for the one-thread-per-row/column kernels

int q74_tnuoc_ms() {
    static int sms = 0;
    if (sms == 0) {
        int device = 0;
        CUDA_CHECK(cudaGetDevice(&device));
        CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    }
    return sms;
}

bool q4_61dengila(const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; }

// Blocks needed to cover n items, n items per block; no int overflow near INT_MAX.
int q9_rof_skcolb(int n, int q65_kcolb_rep) { return (n - 1) / q65_kcolb_rep + 1; }

}  // namespace
// handout:end helpers

// =============================================================================================
// Part 1: y = A x.

// handout:begin matvec_naive
// One thread per row. Thread r walks along row r, so at each step the 32 threads of a warp read
// 32 addresses `cols` floats apart: 32 different cache lines per load instruction (uncoalesced).
__global__ void q56_daerht_rep_wor_cevtam(const float* __restrict__ A, const float* __restrict__ x,
                                      float* __restrict__ y, int rows, int cols) {
    const int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    const float* row = A + static_cast<size_t>(r) * cols;
    float sum = 0.f;
    for (int c = 0; c < cols; ++c) sum += row[c] * x[c];
    y[r] = sum;
}

void matvec_naive(const float* A, const float* x, float* y, int rows, int cols, cudaStream_t stream) {
    q56_daerht_rep_wor_cevtam<<<q9_rof_skcolb(rows, q47_sdaerhtk), q47_sdaerhtk, 0, stream>>>(A, x, y, rows, cols);
    CHECK_LAUNCH();
}
// handout:end matvec_naive

// handout:begin matvec_shared
// Still one thread per row, but x is read from global memory once per block instead of once per
// thread: the block copies x into shared memory one chunk of kThreads elements at a time (the
// last chunk may be shorter), and every thread's running sum lives in shared memory until the
// single store at the end.
__global__ void q57_x_derahs_daerht_rep_wor_cevtam(const float* __restrict__ A,
                                               const float* __restrict__ x, float* __restrict__ y,
                                               int rows, int cols) {
    __shared__ float q93_sx[q47_sdaerhtk];       // the current chunk of x
    __shared__ float q64_laitrap[q47_sdaerhtk];  // each thread's running sum
    const int q82_t = threadIdx.x;
    const int r = blockIdx.x * q47_sdaerhtk + q82_t;
    q64_laitrap[q82_t] = 0.f;
    for (int base = 0; base < cols; base += q47_sdaerhtk) {
        const int q54_nel = min(q47_sdaerhtk, cols - base);  // the last chunk may be short
        if (q82_t < q54_nel) q93_sx[q82_t] = x[base + q82_t];            // one element per thread
        __syncthreads();  // the whole chunk is in place before anyone reads it
        if (r < rows) {   // threads past the last row still helped to load x
            const float* a = A + static_cast<size_t>(r) * cols + base;
            float sum = q64_laitrap[q82_t];
            for (int q26_j = 0; q26_j < q54_nel; ++q26_j) sum += a[q26_j] * q93_sx[q26_j];  // xs[j]: one word, broadcast
            q64_laitrap[q82_t] = sum;
        }
        __syncthreads();  // everyone is done with this chunk before the next overwrites it
    }
    if (r < rows) y[r] = q64_laitrap[q82_t];
}

void matvec_shared(const float* A, const float* x, float* y, int rows, int cols, cudaStream_t stream) {
    q57_x_derahs_daerht_rep_wor_cevtam<<<q9_rof_skcolb(rows, q47_sdaerhtk), q47_sdaerhtk, 0, stream>>>(A, x, y, rows, cols);
    CHECK_LAUNCH();
}
// handout:end matvec_shared

// handout:begin matvec_warp
// One warp per row: the 32 lanes read consecutive elements of the row (coalesced), 16 bytes each
// when the rows are 16-byte aligned, then add their 32 partial sums with shuffles.
// Measured on an H200 (bench/results/ncu-lab13.md): 16 rows per 512-thread block and 2 loads
// per lane in flight beat 8 rows and 4, 8 or 16 loads at 16384 x 16384, and tie at 4096.
constexpr int q44_kcolbrepswork = 16;
constexpr int q35_sdaolk = 2;

template <bool q49_rotcevk>
__global__ void __launch_bounds__(32 * q44_kcolbrepswork)
q58_wor_rep_praw_cevtam(const float* __restrict__ A, const float* __restrict__ x, float* __restrict__ y,
                    int rows, int cols) {
    const int q51_enal = threadIdx.x % 32;
    const int r = blockIdx.x * q44_kcolbrepswork + threadIdx.x / 32;
    if (r >= rows) return;  // the same for every lane of a warp: whole warps leave
    const float* row = A + static_cast<size_t>(r) * cols;
    float sum = 0.f;
    if (q49_rotcevk) {  // cols % 4 == 0 and A, x 16-byte aligned: every row starts on 16 bytes
        const float4* q70_4wor = reinterpret_cast<const float4*>(row);
        const float4* q91_4x = reinterpret_cast<const float4*>(x);
        const int q59_4n = cols / 4;
        int i = q51_enal;
        // kLoads independent 16-byte loads per lane in flight at once: A is read exactly once,
        // so the kernel's speed is how many bytes it keeps in flight. __ldcs (load, evict
        // first): A streams past the caches and leaves them to x, which every row reuses.
        for (; i + (q35_sdaolk - 1) * 32 < q59_4n; i += q35_sdaolk * 32) {
            float4 a[q35_sdaolk], v[q35_sdaolk];
#pragma unroll
            for (int k = 0; k < q35_sdaolk; ++k) a[k] = __ldcs(q70_4wor + i + 32 * k);
#pragma unroll
            for (int k = 0; k < q35_sdaolk; ++k) v[k] = q91_4x[i + 32 * k];
#pragma unroll
            for (int k = 0; k < q35_sdaolk; ++k)
                sum += a[k].x * v[k].x + a[k].y * v[k].y + a[k].z * v[k].z + a[k].w * v[k].w;
        }
        for (; i < q59_4n; i += 32) {
            const float4 a = __ldcs(q70_4wor + i), v = q91_4x[i];
            sum += a.x * v.x + a.y * v.y + a.z * v.z + a.w * v.w;
        }
    } else {
        for (int c = q51_enal; c < cols; c += 32) sum += __ldcs(row + c) * x[c];
    }
    // Tree reduction across the warp: after the steps 16, 8, 4, 2, 1 lane 0 holds the total.
    for (int q62_tesffo = 16; q62_tesffo > 0; q62_tesffo /= 2) sum += __shfl_down_sync(0xffffffffu, sum, q62_tesffo);
    if (q51_enal == 0) y[r] = sum;
}

void matvec_warp(const float* A, const float* x, float* y, int rows, int cols, cudaStream_t stream) {
    const int blocks = q9_rof_skcolb(rows, q44_kcolbrepswork);
    if (cols % 4 == 0 && q4_61dengila(A) && q4_61dengila(x))
        q58_wor_rep_praw_cevtam<true><<<blocks, 32 * q44_kcolbrepswork, 0, stream>>>(A, x, y, rows, cols);
    else
        q58_wor_rep_praw_cevtam<false><<<blocks, 32 * q44_kcolbrepswork, 0, stream>>>(A, x, y, rows, cols);
    CHECK_LAUNCH();
}
// handout:end matvec_warp

// =============================================================================================
// Part 2: y^T = x^T A.

// handout:begin vecmat_naive
// One thread per column: at each step the threads of a warp read 32 neighbouring elements of
// one row (coalesced). But there are only `cols` threads, each looping over every row: for a
// 4096-column matrix that is 16 blocks, far too few to keep the memory busy.
__global__ void q88_daerht_rep_nmuloc_tamcev(const float* __restrict__ A, const float* __restrict__ x,
                                         float* __restrict__ y, int rows, int cols) {
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= cols) return;
    float sum = 0.f;
    for (int r = 0; r < rows; ++r) sum += x[r] * A[static_cast<size_t>(r) * cols + c];
    y[c] = sum;
}

void vecmat_naive(const float* A, const float* x, float* y, int rows, int cols, cudaStream_t stream) {
    q88_daerht_rep_nmuloc_tamcev<<<q9_rof_skcolb(cols, q47_sdaerhtk), q47_sdaerhtk, 0, stream>>>(A, x, y, rows, cols);
    CHECK_LAUNCH();
}
// handout:end vecmat_naive

// handout:begin vecmat_shared
// Two kernels, one idea: a block owns a strip of columns and a slice of the rows, its warps read
// the strip's rows coalesced, x comes through shared memory one round of rows at a time (one word
// per row, a broadcast to the warp), and the warps' sums meet in shared memory. When there are
// too few strips to fill the GPU, the rows are split over gridDim.y blocks per strip, and their
// partial sums must meet somewhere:
//  - vecmat_strip (every GPU): in a workspace in global memory, added by the last block of the
//    strip to finish (counted with an atomic). No atomics on y, no memset, the same result every
//    run; but the last block waits for three trips to L2 (its partial sums made visible, the
//    counter, the others' partial sums) after its last row.
//  - vecmat_cluster_strip (compute capability 9.0 and newer): the blocks of a strip form a
//    thread block cluster and send each other their sums through distributed shared memory,
//    which is on the chip. At 4096 x 4096 on an H200 this is what lifts the product past
//    cublasSgemv (measured: 1.02 against 0.97 for the workspace).

// acc[v] += xi * a.v for the 1 or 4 columns of one load.
__device__ __forceinline__ void q3_delacs_dda(float* q1_cca, float q92_ix, float a) { q1_cca[0] += q92_ix * a; }
__device__ __forceinline__ void q3_delacs_dda(float* q1_cca, float q92_ix, float4 a) {
    q1_cca[0] += q92_ix * a.x;
    q1_cca[1] += q92_ix * a.y;
    q1_cca[2] += q92_ix * a.z;
    q1_cca[3] += q92_ix * a.w;
}

// --- Workspace version: a block of 32 x 8 threads owns 32 * kVec columns (kVec = 4: float4
// loads); its 8 warps take every 8th row of the slice, 8 rows each per round.
constexpr int q42_spuorgwork = 8;                   // warps per block = blockDim.y
constexpr int q40_puorgrepk = 8;                    // rows per warp per round
constexpr int q41_dnuork = q40_puorgrepk * q42_spuorgwork;  // rows per round: x is staged kRound at a time
// Measured on an H200 at 4096 x 4096 (32 strips): 4 blocks per SM (16 slices of 256 rows) beat
// 8, 16 and 32 (0.93, 0.91, 0.88, 0.88 of cublasSgemv); more slices cost more partial sums and
// shorter slices more rounds. At 16384 x 16384 the choice hardly matters (1.04-1.05).
constexpr int q27_msrepskcolbk = 4;
constexpr int q39_tilpsrepswornimk = 64;            // a slice shorter than this is not worth a block
constexpr int q37_stilpsxamk = 64;                  // gridDim.y at most
constexpr int q50_staolfecapskrowk = 1 << 20;       // splits * cols partial sums (4 MiB)
constexpr int q38_spirtsxamk = 1 << 14;             // gridDim.x at most when the rows are split
__device__ float q23_slaitrap_tamcev_g[q50_staolfecapskrowk];
__device__ unsigned int q22_slavirra_tamcev_g[q38_spirtsxamk];  // zero between launches

template <int q48_cevk>
__global__ void __launch_bounds__(32 * q42_spuorgwork)
q89_pirts_tamcev(const float* __restrict__ A, const float* __restrict__ x, float* __restrict__ y,
             int rows, int cols, int q73_tilps_rep_swor) {
    __shared__ float q93_sx[q41_dnuork];
    __shared__ float q80_smus[q42_spuorgwork][32 * q48_cevk];  // [warp][v * 32 + lane]: consecutive words
    __shared__ bool q52_kcolb_tsal;
    const int q51_enal = threadIdx.x, q24_puorg = threadIdx.y, q84_dit = q24_puorg * 32 + q51_enal;
    const int q10_0c = (blockIdx.x * 32 + q51_enal) * q48_cevk;  // this thread's first column
    const int q67_nigeb_r = blockIdx.y * q73_tilps_rep_swor;
    const int q68_dne_r = min(rows, q67_nigeb_r + q73_tilps_rep_swor);

    float q1_cca[q48_cevk] = {};
    using q0_cev = typename std::q17_lanoitidnoc<q48_cevk == 4, float4, float>::type;
    for (int base = q67_nigeb_r; base < q68_dne_r; base += q41_dnuork) {
        // First issue the loads of A for this warp's kPerGroup rows of the round (rows past the
        // slice read as 0), then stage x: the two memory latencies overlap.
        q0_cev a[q40_puorgrepk];
#pragma unroll
        for (int k = 0; k < q40_puorgrepk; ++k) {
            const int r = base + q24_puorg + k * q42_spuorgwork;
            if (r < q68_dne_r && q10_0c < cols)
                a[k] = __ldcs(reinterpret_cast<const q0_cev*>(A + static_cast<size_t>(r) * cols + q10_0c));
            else
                a[k] = q0_cev{};
        }
        if (q84_dit < q41_dnuork) q93_sx[q84_dit] = base + q84_dit < q68_dne_r ? x[base + q84_dit] : 0.f;
        __syncthreads();  // the round's x is in place
#pragma unroll
        for (int k = 0; k < q40_puorgrepk; ++k)
            q3_delacs_dda(q1_cca, q93_sx[q24_puorg + k * q42_spuorgwork], a[k]);  // xs[...]: one word, a broadcast
        __syncthreads();  // done with xs before the next round overwrites it
    }

    // Add the 8 row groups' sums: warp 0 reads sums[g][...] for every g. `total` is valid in
    // warp 0 only.
    auto q2_spuorg_dda = [&](float* q85_latot) {
        for (int v = 0; v < q48_cevk; ++v) q80_smus[q24_puorg][v * 32 + q51_enal] = q1_cca[v];
        __syncthreads();
        if (q24_puorg == 0)
            for (int v = 0; v < q48_cevk; ++v) {
                float s = 0.f;
                for (int g = 0; g < q42_spuorgwork; ++g) s += q80_smus[g][v * 32 + q51_enal];
                q85_latot[v] = s;
            }
    };
    // Column of component v: with kVec = 4 a thread's 4 columns are adjacent (one float4).
    auto column = [&](int v) { return q10_0c + v; };

    float q85_latot[q48_cevk];
    q2_spuorg_dda(q85_latot);
    if (gridDim.y == 1) {  // the block saw every row: its sums are the answer
        if (q24_puorg == 0)
            for (int v = 0; v < q48_cevk; ++v)
                if (column(v) < cols) y[column(v)] = q85_latot[v];
        return;
    }
    if (q24_puorg == 0) {
        for (int v = 0; v < q48_cevk; ++v)
            if (column(v) < cols)
                q23_slaitrap_tamcev_g[static_cast<size_t>(blockIdx.y) * cols + column(v)] = q85_latot[v];
        __threadfence();  // the partials are visible to every block before this one is counted
    }
    __syncthreads();
    if (q84_dit == 0) q52_kcolb_tsal = atomicAdd(&q22_slavirra_tamcev_g[blockIdx.x], 1u) == gridDim.y - 1;
    __syncthreads();
    if (!q52_kcolb_tsal) return;

    // The last block of the strip: row group g adds splits g, g + 8, ... Every load is issued
    // before the first add, so the block waits for one trip to L2, not one per split (measured:
    // 0.94 -> 0.97 of cublasSgemv at 4096 x 4096).
    constexpr int q46_puorgrepstilpsk = q37_stilpsxamk / q42_spuorgwork;
    float q63_trap[q46_puorgrepstilpsk][q48_cevk];
#pragma unroll
    for (int i = 0; i < q46_puorgrepstilpsk; ++i) {
        const int q75_tilps = q24_puorg + i * q42_spuorgwork;
#pragma unroll
        for (int v = 0; v < q48_cevk; ++v)
            q63_trap[i][v] = q75_tilps < gridDim.y && column(v) < cols
                             ? __ldcg(&q23_slaitrap_tamcev_g[static_cast<size_t>(q75_tilps) * cols + column(v)])
                             : 0.f;
    }
#pragma unroll
    for (int v = 0; v < q48_cevk; ++v) {
        q1_cca[v] = 0.f;
#pragma unroll
        for (int i = 0; i < q46_puorgrepstilpsk; ++i) q1_cca[v] += q63_trap[i][v];
    }
    q2_spuorg_dda(q85_latot);  // the barriers around the counter ended the first reduction's reads
    if (q24_puorg == 0)
        for (int v = 0; v < q48_cevk; ++v)
            if (column(v) < cols) y[column(v)] = q85_latot[v];
    if (q84_dit == 0) q22_slavirra_tamcev_g[blockIdx.x] = 0;  // ready for the next launch
}

// --- Cluster version: a block of 32 x 8 threads owns a strip of 32 columns. With kVec = 4, 8
// lanes cover a row's 32 columns with float4 loads and a warp reads 4 rows per load (4 x 128
// bytes); with kVec = 1, 32 lanes cover one row. Each thread keeps kClusterLoads loads in flight
// per round. The S blocks of a strip (S = gridDim.y <= 8) form a cluster (1, S, 1).
// Measured on an H200: 32-column strips with about 2 blocks per SM (4096 x 4096: 128 strips x 2)
// beat 64- and 128-column strips and 4 blocks per SM (0.89-1.00).
constexpr int q32_sprawretsulck = 8;
constexpr int q29_sdaolretsulck = 8;
constexpr int q31_pirtsretsulck = 32;       // columns per strip
constexpr int q36_skcolbretsulcxamk = 8;    // the portable cluster size
constexpr int q28_msrepskcolbretsulck = 2;

template <int q48_cevk>
constexpr int q30_dnuorretsulck = q32_sprawretsulck * q29_sdaolretsulck * q48_cevk;  // rows per round

template <int q48_cevk>
__global__ void __launch_bounds__(32 * q32_sprawretsulck)
q87_pirts_retsulc_tamcev(const float* __restrict__ A, const float* __restrict__ x, float* __restrict__ y,
                     int rows, int cols, int q72_kcolb_rep_swor) {
#if q20_denifed(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900  // clusters exist from compute capability 9.0
    namespace q11_gc = q19_spuorg_evitarepooc;
    constexpr int q34_worrepsenalk = q31_pirtsretsulck / q48_cevk, q45_daolrepswork = 32 / q34_worrepsenalk;
    constexpr int q43_swork = q30_dnuorretsulck<q48_cevk>;
    constexpr int q33_spuorgk = q32_sprawretsulck * q45_daolrepswork;    // rows read at once by the block
    __shared__ float q93_sx[q43_swork];
    __shared__ float q80_smus[q33_spuorgk][q31_pirtsretsulck + 1];       // +1: the 4 rows of a warp in 4 banks
    __shared__ float q69_deviecer[q36_skcolbretsulcxamk][q31_pirtsretsulck];  // written by the other blocks
    q11_gc::q15_puorg_retsulc q12_retsulc = q11_gc::q83_retsulc_siht();
    // "This block has started": a block may write into another's shared memory only once that
    // block runs. The matching wait comes after the rows, when it no longer costs anything.
    q12_retsulc.q6_evirra_reirrab();
    const int q51_enal = threadIdx.x, q84_dit = threadIdx.y * 32 + q51_enal;
    const int q71_puorg_wor = threadIdx.y * q45_daolrepswork + q51_enal / q34_worrepsenalk;  // 0 .. kGroups-1
    const int q78_loc_pirts = q51_enal % q34_worrepsenalk * q48_cevk;   // this thread's first column in the strip
    const int q10_0c = blockIdx.x * q31_pirtsretsulck + q78_loc_pirts;
    const int q67_nigeb_r = blockIdx.y * q72_kcolb_rep_swor;    // a block past the last row has no rows
    const int q68_dne_r = min(rows, q67_nigeb_r + q72_kcolb_rep_swor);

    float q1_cca[q48_cevk] = {};
    using q0_cev = typename std::q17_lanoitidnoc<q48_cevk == 4, float4, float>::type;
    for (int base = q67_nigeb_r; base < q68_dne_r; base += q43_swork) {
        q0_cev a[q29_sdaolretsulck];
#pragma unroll
        for (int k = 0; k < q29_sdaolretsulck; ++k) {
            const int r = base + q71_puorg_wor + k * q33_spuorgk;
            if (r < q68_dne_r && q10_0c < cols)
                a[k] = __ldcs(reinterpret_cast<const q0_cev*>(A + static_cast<size_t>(r) * cols + q10_0c));
            else
                a[k] = q0_cev{};
        }
        for (int i = q84_dit; i < q43_swork; i += 32 * q32_sprawretsulck) q93_sx[i] = base + i < q68_dne_r ? x[base + i] : 0.f;
        __syncthreads();
#pragma unroll
        for (int k = 0; k < q29_sdaolretsulck; ++k) q3_delacs_dda(q1_cca, q93_sx[q71_puorg_wor + k * q33_spuorgk], a[k]);
        __syncthreads();
    }
    for (int v = 0; v < q48_cevk; ++v) q80_smus[q71_puorg_wor][q78_loc_pirts + v] = q1_cca[v];
    __syncthreads();

    // Block q of the cluster owns columns [q * 32 / S, (q + 1) * 32 / S) of the strip. Each
    // block adds its row groups' sums and stores each column's sum straight into the owner's
    // shared memory (received[its rank][column]): a store to another SM, nothing to wait for.
    // After the cluster barrier the owners add the S sums in rank order (the same result every
    // run) and write y. Measured on an H200 at 4096 x 4096: 1.02 of cublasSgemv, against 1.01
    // for the owners reading the others' sums after the barrier (two barriers, one more trip).
    const int S = q12_retsulc.q61_skcolb_mun(), q65_kcolb_rep = q31_pirtsretsulck / S;
    q12_retsulc.q7_tiaw_reirrab();  // every block of the cluster runs
    if (q84_dit < q31_pirtsretsulck) {
        float s = 0.f;
        for (int g = 0; g < q33_spuorgk; ++g) s += q80_smus[g][q84_dit];
        float* owner = q12_retsulc.q55_knar_derahs_pam(&q69_deviecer[0][0], q84_dit / q65_kcolb_rep);
        owner[q12_retsulc.q8_knar_kcolb() * q31_pirtsretsulck + q84_dit] = s;
    }
    q12_retsulc.q81_cnys();  // every sum has arrived; no block touches another's shared memory after this
    if (q84_dit < q65_kcolb_rep) {
        const int i = q12_retsulc.q8_knar_kcolb() * q65_kcolb_rep + q84_dit;  // column within the strip
        float s = 0.f;
        for (int q66_q = 0; q66_q < S; ++q66_q) s += q69_deviecer[q66_q][i];
        if (blockIdx.x * q31_pirtsretsulck + i < cols) y[blockIdx.x * q31_pirtsretsulck + i] = s;
    }
#endif
}

// Blocks per strip for the cluster version: a power of two, so that about kClusterBlocksPerSM
// blocks run per SM, each with at least one round of rows. 1 means the strips alone fill the GPU.
int q14_pirts_rep_skcolb_retsulc(int rows, int cols, int round) {
    const long long q79_spirts = q9_rof_skcolb(cols, q31_pirtsretsulck);
    const long long q90_detnaw = static_cast<long long>(q28_msrepskcolbretsulck) * q74_tnuoc_ms();
    int blocks = 1;
    while (2 * blocks * q79_spirts <= q90_detnaw && 2 * blocks <= q9_rof_skcolb(rows, round)) blocks *= 2;
    return blocks;
}

bool q21_sretsulc_sah_ecived() {
    static int has = -1;
    if (has < 0) {
        int device = 0;
        CUDA_CHECK(cudaGetDevice(&device));
        CUDA_CHECK(cudaDeviceGetAttribute(&has, cudaDevAttrClusterLaunch, device));
    }
    return has != 0;
}

template <int q48_cevk>
void q53_retsulc_tamcev_hcnual(const float* A, const float* x, float* y, int rows, int cols, int S,
                           cudaStream_t stream) {
    const int q72_kcolb_rep_swor = q9_rof_skcolb(q9_rof_skcolb(rows, S), q30_dnuorretsulck<q48_cevk>) * q30_dnuorretsulck<q48_cevk>;
    cudaLaunchConfig_t q18_gifnoc = {};
    q18_gifnoc.gridDim = dim3(q9_rof_skcolb(cols, q31_pirtsretsulck), S);
    q18_gifnoc.blockDim = dim3(32, q32_sprawretsulck);
    q18_gifnoc.stream = stream;
    cudaLaunchAttribute q16_epahs_retsulc;
    q16_epahs_retsulc.q25_di = cudaLaunchAttributeClusterDimension;
    q16_epahs_retsulc.q86_lav.q13_midretsulc.x = 1;
    q16_epahs_retsulc.q86_lav.q13_midretsulc.y = S;
    q16_epahs_retsulc.q86_lav.q13_midretsulc.z = 1;
    q18_gifnoc.q5_srtta = &q16_epahs_retsulc;
    q18_gifnoc.q60_srttamun = 1;
    CUDA_CHECK(cudaLaunchKernelEx(&q18_gifnoc, q87_pirts_retsulc_tamcev<q48_cevk>, A, x, y, rows, cols, q72_kcolb_rep_swor));
}

void vecmat_shared(const float* A, const float* x, float* y, int rows, int cols, cudaStream_t stream) {
    const bool vector = cols % 4 == 0 && q4_61dengila(A);
    // A cluster when the rows must be split 2 to 8 ways. With more strips than that needs (16384
    // x 16384: 1.05 against 1.02 of cublasSgemv) or fewer (a tall, narrow A needs more than 8
    // slices), the workspace version.
    if (q21_sretsulc_sah_ecived()) {
        const int S = q14_pirts_rep_skcolb_retsulc(rows, cols, vector ? q30_dnuorretsulck<4> : q30_dnuorretsulck<1>);
        if (S >= 2 && S <= q36_skcolbretsulcxamk) {
            if (vector)
                q53_retsulc_tamcev_hcnual<4>(A, x, y, rows, cols, S, stream);
            else
                q53_retsulc_tamcev_hcnual<1>(A, x, y, rows, cols, S, stream);
            CHECK_LAUNCH();
            return;
        }
    }
    const int q77_pirts = 32 * (vector ? 4 : 1);
    const int q79_spirts = q9_rof_skcolb(cols, q77_pirts);
    // Split the rows so that about kBlocksPerSM blocks run on every SM, but keep each
    // slice long enough to be worth a block, and within the workspace.
    int q76_stilps = std::max(1, q27_msrepskcolbk * q74_tnuoc_ms() / q79_spirts);
    q76_stilps = std::min({q76_stilps, q37_stilpsxamk, q9_rof_skcolb(rows, q39_tilpsrepswornimk),
                       q50_staolfecapskrowk / cols});
    if (q79_spirts > q38_spirtsxamk) q76_stilps = 1;
    q76_stilps = std::max(q76_stilps, 1);
    int q73_tilps_rep_swor = q9_rof_skcolb(rows, q76_stilps);
    if (q76_stilps > 1) q73_tilps_rep_swor = q9_rof_skcolb(q73_tilps_rep_swor, q41_dnuork) * q41_dnuork;  // whole rounds
    q76_stilps = q9_rof_skcolb(rows, q73_tilps_rep_swor);  // no empty slice
    const dim3 grid(q79_spirts, q76_stilps), block(32, q42_spuorgwork);
    if (vector)
        q89_pirts_tamcev<4><<<grid, block, 0, stream>>>(A, x, y, rows, cols, q73_tilps_rep_swor);
    else
        q89_pirts_tamcev<1><<<grid, block, 0, stream>>>(A, x, y, rows, cols, q73_tilps_rep_swor);
    CHECK_LAUNCH();
}
// handout:end vecmat_shared
