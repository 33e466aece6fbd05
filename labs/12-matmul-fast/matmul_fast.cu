// Lab 12 -- a fast matrix product. Your work goes in this file: complete every TODO(lab12).
// Build and run:   make lab12 && ./lab12          (one rung: ./lab12 --variant coarse1d)
//                  ./lab12 --bench                (2048 and 4096: the ratio to cuBLAS)
// The driver checks every rung (1 x 1, primes, non-multiples of the tile, non-square) and
// reports GFLOP/s = 2*m*n*k / time as a ratio to cublasSgemm (FP32, no TF32) at the same size.
//
// All matrices are row-major: A is m x k, B is k x n, C = A * B is m x n.
// The ladder: every rung keeps what the previous one did and adds one idea.
//   tiled       32 x 32 shared tiles, one output per thread (lab 10)
//   coarse1d    each thread computes 8 outputs of a column: one shared load of B feeds 8 FMAs
//   coarse2d    each thread computes an 8 x 8 block: 16 shared loads feed 64 FMAs
//   vectorized  float4 global loads, A's tile stored transposed: 4 float4 shared loads per p
//   warptile    a warp owns a 64 x 32 region of C; each thread's 8 x 8 outputs are 2 x 2 blocks
//               of 4 x 4 spread over it, so a warp's shared loads are conflict-free
//   fast        A packed transposed once, then a cp.async pipeline: the next slices copy
//               straight from global to shared memory while this one is used; bigger tiles
// Correct for any size; fast for multiples of the tile.
#include <cstdint>

#include "matmul_fast.h"

namespace {

// handout:begin tiled
constexpr int kTile = 32;

__global__ void sgemm_tiled_kernel(const float* a, const float* b, float* c, int m, int n, int k) {
    // TODO(lab12) tiled: your tiled32 kernel of lab 10 (shared as[32][32] and bs[32][32],
    // zeros past the edges, two __syncthreads per tile, a guarded store).
}
// handout:end tiled

}  // namespace

// handout:begin tiled
void sgemm_tiled(const float* a, const float* b, float* c, int m, int n, int k, cudaStream_t stream) {
    const dim3 block(kTile, kTile);
    const dim3 grid((n + kTile - 1) / kTile, (m + kTile - 1) / kTile);
    sgemm_tiled_kernel<<<grid, block, 0, stream>>>(a, b, c, m, n, k);
    CHECK_LAUNCH();
}
// handout:end tiled

namespace {

// Loads with zeros past the edges: a tile that hangs over the matrix contributes nothing.
__device__ __forceinline__ float load_or_zero(const float* p, int row, int col, int rows, int cols) {
    return (row < rows && col < cols) ? p[static_cast<size_t>(row) * cols + col] : 0.0f;
}

// handout:begin coarse1d
// 64 x 64 block tile, 8-deep slices of k, 512 threads. Thread t computes the 8 outputs at rows
// trow..trow+7 (trow = 8 * (t / 64)) of column tcol = t % 64, in registers (acc[8]).
[[maybe_unused]] constexpr int k1BM = 64, k1BN = 64, k1BK = 8, k1TM = 8;

__global__ void __launch_bounds__(512) sgemm_coarse1d_kernel(const float* a, const float* b, float* c, int m, int n, int k) {
    // TODO(lab12) coarse1d: __shared__ float as[64][8], bs[8][64]; for each slice p0 of k:
    //   as[t / 8][t % 8] = A at (m0 + t / 8, p0 + t % 8);  bs[t / 64][t % 64] = B at
    //   (p0 + t / 64, n0 + t % 64)  (load_or_zero handles the edges);  __syncthreads();
    //   for p < 8: bv = bs[p][tcol]; acc[i] += as[trow + i][p] * bv for i < 8;  __syncthreads();
    // then store the 8 outputs that are inside C.
}
// handout:end coarse1d

}  // namespace

// handout:begin coarse1d
void sgemm_coarse1d(const float* a, const float* b, float* c, int m, int n, int k, cudaStream_t stream) {
    const dim3 grid((n + k1BN - 1) / k1BN, (m + k1BM - 1) / k1BM);
    sgemm_coarse1d_kernel<<<grid, 512, 0, stream>>>(a, b, c, m, n, k);
    CHECK_LAUNCH();
}
// handout:end coarse1d

namespace {

// handout:begin coarse2d
// 128 x 128 block tile, 8-deep slices, 256 threads; thread t computes the 8 x 8 block of C at
// rows trow = 8 * (t / 16).., columns tcol = 8 * (t % 16).., in float acc[8][8].
[[maybe_unused]] constexpr int k2BM = 128, k2BN = 128, k2BK = 8, k2T = 8, k2Threads = 256;

__global__ void __launch_bounds__(k2Threads) sgemm_coarse2d_kernel(const float* a, const float* b, float* c, int m, int n, int k) {
    // TODO(lab12) coarse2d: shared as[128][8] and bs[8][128] (1024 elements each: 4 loads per
    // thread, i = t, t + 256, ...); per p: copy as[trow + i][p] into ra[8] and bs[p][tcol + j]
    // into rb[8], then acc[i][j] += ra[i] * rb[j]; finally the guarded stores.
}
// handout:end coarse2d

}  // namespace

// handout:begin coarse2d
void sgemm_coarse2d(const float* a, const float* b, float* c, int m, int n, int k, cudaStream_t stream) {
    const dim3 grid((n + k2BN - 1) / k2BN, (m + k2BM - 1) / k2BM);
    sgemm_coarse2d_kernel<<<grid, k2Threads, 0, stream>>>(a, b, c, m, n, k);
    CHECK_LAUNCH();
}
// handout:end coarse2d

namespace {

// handout:begin vectorized
// Four consecutive floats of a row, as one 16-byte load when they are all inside and aligned
// (vec: the row length is a multiple of 4), else one by one with zeros past the edge.
[[maybe_unused]] __device__ __forceinline__ float4 load4(const float* p, int row, int col, int rows, int cols, bool vec) {
    if (vec && row < rows && col + 3 < cols)
        return __ldg(reinterpret_cast<const float4*>(p + static_cast<size_t>(row) * cols + col));
    return make_float4(load_or_zero(p, row, col, rows, cols), load_or_zero(p, row, col + 1, rows, cols),
                       load_or_zero(p, row, col + 2, rows, cols), load_or_zero(p, row, col + 3, rows, cols));
}

// Stores four consecutive floats of a row of C, guarded.
[[maybe_unused]] __device__ __forceinline__ void store4(float* c, int row, int col, int rows, int cols, bool vec, float4 v) {
    if (row >= rows) return;
    float* p = c + static_cast<size_t>(row) * cols + col;
    if (vec && col + 3 < cols) {
        *reinterpret_cast<float4*>(p) = v;
        return;
    }
    if (col < cols) p[0] = v.x;
    if (col + 1 < cols) p[1] = v.y;
    if (col + 2 < cols) p[2] = v.z;
    if (col + 3 < cols) p[3] = v.w;
}

__global__ void __launch_bounds__(k2Threads) sgemm_vectorized_kernel(const float* a, const float* b, float* c, int m, int n, int k) {
    // TODO(lab12) vectorized: coarse2d with
    //  - __shared__ __align__(16) float ast[8][128] (A's tile transposed: ast[p][row]) and bs[8][128];
    //  - A: thread t loads the float4 at tile row t / 2, columns (t % 2) * 4.. with load4 (vec =
    //    k % 4 == 0) and scatters its 4 floats into ast[q..q+3][t / 2];
    //  - B: thread t loads the float4 at tile row t / 32, columns (t % 32) * 4.. and stores it
    //    whole into bs;
    //  - per p: two float4 from ast[p][trow..] and two from bs[p][tcol..]; 64 FMAs;
    //  - stores with store4 (vec = n % 4 == 0).
}
// handout:end vectorized

}  // namespace

// handout:begin vectorized
void sgemm_vectorized(const float* a, const float* b, float* c, int m, int n, int k, cudaStream_t stream) {
    const dim3 grid((n + k2BN - 1) / k2BN, (m + k2BM - 1) / k2BM);
    sgemm_vectorized_kernel<<<grid, k2Threads, 0, stream>>>(a, b, c, m, n, k);
    CHECK_LAUNCH();
}
// handout:end vectorized

namespace {

// handout:begin warptile
// The block (BM x BN of C) is split among WarpsM x WarpsN warps; a warp's region is
// WM x WN = (8 * LanesM) x (8 * LanesN), its 32 lanes a LanesM x LanesN grid. Each thread owns
// 2 x 2 blocks of 4 x 4 outputs: rows tm + {0..3} and tm + WM/2 + {0..3}, columns tn + {0..3}
// and tn + WN/2 + {0..3} of the tile. At each p the lanes of a warp read float4 pieces of
// ast[p] and bs[p] that lie side by side: conflict-free, with broadcasts.
// Guard: edge checks (load4/store4) for sizes that are not multiples of the tile.
template <int BM, int BN, int BK, int WarpsM, int WarpsN, int LanesM, bool Guard>
__global__ void __launch_bounds__(WarpsM * WarpsN * 32, 2)
sgemm_warptile_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                      int m, int n, int k) {
    constexpr int LanesN = 32 / LanesM;
    constexpr int WM = BM / WarpsM, WN = BN / WarpsN;
    static_assert(WM == 8 * LanesM && WN == 8 * LanesN, "each thread computes 8 x 8 outputs");
    // This thread (t = threadIdx.x, lane = t % 32, warp = t / 32) in the block's tile at
    // m0 = blockIdx.y * BM, n0 = blockIdx.x * BN: its first row and column in the tile are
    //   tm = (warp / WarpsN) * WM + (lane / LanesN) * 4,  tn = (warp % WarpsN) * WN + (lane % LanesN) * 4.
    // TODO(lab12) warptile: with __shared__ __align__(16) float ast[BK][BM + 4] (4 floats of
    // padding keep rows 16-byte aligned and spread the transposed stores) and bs[BK][BN]:
    // for each slice, load A's and B's tiles as in vectorized (BM * BK / 4 / threads float4 each
    // per thread), __syncthreads(), then per p read a0 = ast[p][tm..], a1 = ast[p][tm + WM/2..],
    // b0 = bs[p][tn..], b1 = bs[p][tn + WN/2..] (float4 each) and do the 64 FMAs;
    // __syncthreads(); then store the four 4 x 4 blocks (store4 when Guard).
}

// Launches one configuration: the unguarded kernel when the sizes are multiples of the tile.
template <int BM, int BN, int BK, int WarpsM, int WarpsN, int LanesM>
void launch_warptile(const float* a, const float* b, float* c, int m, int n, int k, cudaStream_t stream) {
    const dim3 grid((n + BN - 1) / BN, (m + BM - 1) / BM);
    const int threads = WarpsM * WarpsN * 32;
    if (m % BM == 0 && n % BN == 0 && k % BK == 0)
        sgemm_warptile_kernel<BM, BN, BK, WarpsM, WarpsN, LanesM, false><<<grid, threads, 0, stream>>>(a, b, c, m, n, k);
    else
        sgemm_warptile_kernel<BM, BN, BK, WarpsM, WarpsN, LanesM, true><<<grid, threads, 0, stream>>>(a, b, c, m, n, k);
    CHECK_LAUNCH();
}
// handout:end warptile

// handout:begin fast
// The fast rung: two changes to the warp-tiled kernel.
//  1. Pack A once, transposed (at = A^T, k x m; a lab 08 transpose): a slice of A's tile is then
//     BK rows of `at`, contiguous like B's, and both tiles become plain copies.
//  2. Plain copies can go straight from global to shared memory with cp.async (sm_80 and
//     newer), without registers: keep Stages slices in flight, so the FMAs of one slice overlap
//     the copies of the next Stages - 1, with one __syncthreads per slice.
// The helpers below wrap the three PTX instructions (with a plain copy before sm_80).
[[maybe_unused]] __device__ __forceinline__ void copy16_async(float* shared_dst, const float* global_src) {
#if __CUDA_ARCH__ >= 800
    const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(shared_dst));
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(global_src));
#else
    *reinterpret_cast<float4*>(shared_dst) = __ldg(reinterpret_cast<const float4*>(global_src));
#endif
}
// Closes the group of copies issued since the last commit.
[[maybe_unused]] __device__ __forceinline__ void async_commit() {
#if __CUDA_ARCH__ >= 800
    asm volatile("cp.async.commit_group;\n" ::);
#endif
}
// Waits until at most Pending groups of this thread's copies are still in flight.
template <int Pending>
__device__ __forceinline__ void async_wait() {
#if __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_group %0;\n" ::"n"(Pending));
#endif
}

// TODO(lab12) fast: write the pipelined kernel here. Suggested schedule, with shared
// ast[Stages][BK][BM] and bs[Stages][BK][BN]:
//   issue slices 0 .. Stages-2 (each followed by async_commit(), even when there is no slice,
//   so that the count of groups stays exact);
//   for each slice s: async_wait<Stages - 2>(); __syncthreads();
//                     issue slice s + Stages - 1 into stage (s + Stages - 1) % Stages; async_commit();
//                     the 64 FMAs per p on stage s % Stages, as in warptile;
//   async_wait<0>() before the stores. The packed copy of A needs scratch memory: cudaMalloc it
//   once (outside the timed calls, which repeat the first one) and keep it.
// handout:end fast

}  // namespace

// handout:begin warptile
void sgemm_warptile(const float* a, const float* b, float* c, int m, int n, int k, cudaStream_t stream) {
    // 128 x 128 tiles, 8-deep slices, 8 warps as 2 x 4, each warp 64 x 32 (lanes 8 x 4).
    launch_warptile<128, 128, 8, 2, 4, 8>(a, b, c, m, n, k, stream);
}
// handout:end warptile

// handout:begin fast
void sgemm_fast(const float* a, const float* b, float* c, int m, int n, int k, cudaStream_t stream) {
    // TODO(lab12) fast: pack A (transposed) and launch your pipelined kernel when m, n and k are
    // multiples of its tile, else launch_warptile(...). Start with 128 x 128 tiles, 16-deep
    // slices, 3 stages, 8 warps; then try 256 x 128 tiles with 16 warps (4 x 4) and 2 stages.
    // Target: 0.90 of cuBLAS at 4096, 0.80 at 2048 (--bench).
}
// handout:end fast
