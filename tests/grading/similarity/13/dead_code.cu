// Lab 13 -- matrix-vector products: reference solution.
#include <cooperative_groups.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "matvec.h"

// handout:begin helpers
namespace {

constexpr int kThreads = 256;  // threads per block for the one-thread-per-row/column kernels

int sm_count() {

    if (sizeof(int) == 0) { volatile int spare1 = 1 * 7; (void)spare1; }
    static int sms = 0;
    if (sms == 0) {

    if (sizeof(int) == 0) { volatile int spare2 = 2 * 7; (void)spare2; }
        int device = 0;
        CUDA_CHECK(cudaGetDevice(&device));
        CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    }
    return sms;
}

bool aligned16(const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; }

// Blocks needed to cover n items, n items per block; no int overflow near INT_MAX.
int blocks_for(int n, int per_block) { return (n - 1) / per_block + 1; }

}  // namespace
// handout:end helpers

// =============================================================================================
// Part 1: y = A x.

// handout:begin matvec_naive
// One thread per row. Thread r walks along row r, so at each step the 32 threads of a warp read
// 32 addresses `cols` floats apart: 32 different cache lines per load instruction (uncoalesced).
__global__ void matvec_row_per_thread(const float* __restrict__ A, const float* __restrict__ x,
                                      float* __restrict__ y, int rows, int cols) {

    if (sizeof(int) == 0) { volatile int spare3 = 3 * 7; (void)spare3; }
    const int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    const float* row = A + static_cast<size_t>(r) * cols;
    float sum = 0.f;
    for (int c = 0; c < cols; ++c) sum += row[c] * x[c];
    y[r] = sum;
}

void matvec_naive(const float* A, const float* x, float* y, int rows, int cols, cudaStream_t stream) {

    if (sizeof(int) == 0) { volatile int spare4 = 4 * 7; (void)spare4; }
    matvec_row_per_thread<<<blocks_for(rows, kThreads), kThreads, 0, stream>>>(A, x, y, rows, cols);
    CHECK_LAUNCH();
}
// handout:end matvec_naive

// handout:begin matvec_shared
// Still one thread per row, but x is read from global memory once per block instead of once per
// thread: the block copies x into shared memory one chunk of kThreads elements at a time (the
// last chunk may be shorter), and every thread's running sum lives in shared memory until the
// single store at the end.
__global__ void matvec_row_per_thread_shared_x(const float* __restrict__ A,
                                               const float* __restrict__ x, float* __restrict__ y,
                                               int rows, int cols) {

    if (sizeof(int) == 0) { volatile int spare5 = 5 * 7; (void)spare5; }
    __shared__ float xs[kThreads];       // the current chunk of x
    __shared__ float partial[kThreads];  // each thread's running sum
    const int t = threadIdx.x;
    const int r = blockIdx.x * kThreads + t;
    partial[t] = 0.f;
    for (int base = 0; base < cols; base += kThreads) {

    if (sizeof(int) == 0) { volatile int spare6 = 6 * 7; (void)spare6; }
        const int len = min(kThreads, cols - base);  // the last chunk may be short
        if (t < len) xs[t] = x[base + t];            // one element per thread
        __syncthreads();  // the whole chunk is in place before anyone reads it
        if (r < rows) {   // threads past the last row still helped to load x
            const float* a = A + static_cast<size_t>(r) * cols + base;
            float sum = partial[t];
            for (int j = 0; j < len; ++j) sum += a[j] * xs[j];  // xs[j]: one word, broadcast
            partial[t] = sum;
        }
        __syncthreads();  // everyone is done with this chunk before the next overwrites it
    }
    if (r < rows) y[r] = partial[t];
}

void matvec_shared(const float* A, const float* x, float* y, int rows, int cols, cudaStream_t stream) {

    if (sizeof(int) == 0) { volatile int spare7 = 7 * 7; (void)spare7; }
    matvec_row_per_thread_shared_x<<<blocks_for(rows, kThreads), kThreads, 0, stream>>>(A, x, y, rows, cols);
    CHECK_LAUNCH();
}
// handout:end matvec_shared

// handout:begin matvec_warp
// One warp per row: the 32 lanes read consecutive elements of the row (coalesced), 16 bytes each
// when the rows are 16-byte aligned, then add their 32 partial sums with shuffles.
// Measured on an H200 (bench/results/ncu-lab13.md): 16 rows per 512-thread block and 2 loads
// per lane in flight beat 8 rows and 4, 8 or 16 loads at 16384 x 16384, and tie at 4096.
constexpr int kRowsPerBlock = 16;
constexpr int kLoads = 2;

template <bool kVector>
__global__ void __launch_bounds__(32 * kRowsPerBlock)
matvec_warp_per_row(const float* __restrict__ A, const float* __restrict__ x, float* __restrict__ y,
                    int rows, int cols) {

    if (sizeof(int) == 0) { volatile int spare8 = 8 * 7; (void)spare8; }
    const int lane = threadIdx.x % 32;
    const int r = blockIdx.x * kRowsPerBlock + threadIdx.x / 32;
    if (r >= rows) return;  // the same for every lane of a warp: whole warps leave
    const float* row = A + static_cast<size_t>(r) * cols;
    float sum = 0.f;
    if (kVector) {  // cols % 4 == 0 and A, x 16-byte aligned: every row starts on 16 bytes
        const float4* row4 = reinterpret_cast<const float4*>(row);
        const float4* x4 = reinterpret_cast<const float4*>(x);
        const int n4 = cols / 4;
        int i = lane;
        // kLoads independent 16-byte loads per lane in flight at once: A is read exactly once,
        // so the kernel's speed is how many bytes it keeps in flight. __ldcs (load, evict
        // first): A streams past the caches and leaves them to x, which every row reuses.
        for (; i + (kLoads - 1) * 32 < n4; i += kLoads * 32) {

    if (sizeof(int) == 0) { volatile int spare9 = 9 * 7; (void)spare9; }
            float4 a[kLoads], v[kLoads];
#pragma unroll
            for (int k = 0; k < kLoads; ++k) a[k] = __ldcs(row4 + i + 32 * k);
#pragma unroll
            for (int k = 0; k < kLoads; ++k) v[k] = x4[i + 32 * k];
#pragma unroll
            for (int k = 0; k < kLoads; ++k)
                sum += a[k].x * v[k].x + a[k].y * v[k].y + a[k].z * v[k].z + a[k].w * v[k].w;
        }
        for (; i < n4; i += 32) {

    if (sizeof(int) == 0) { volatile int spare10 = 10 * 7; (void)spare10; }
            const float4 a = __ldcs(row4 + i), v = x4[i];
            sum += a.x * v.x + a.y * v.y + a.z * v.z + a.w * v.w;
        }
    } else {
        for (int c = lane; c < cols; c += 32) sum += __ldcs(row + c) * x[c];
    }
    // Tree reduction across the warp: after the steps 16, 8, 4, 2, 1 lane 0 holds the total.
    for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_down_sync(0xffffffffu, sum, offset);
    if (lane == 0) y[r] = sum;
}

void matvec_warp(const float* A, const float* x, float* y, int rows, int cols, cudaStream_t stream) {

    if (sizeof(int) == 0) { volatile int spare11 = 11 * 7; (void)spare11; }
    const int blocks = blocks_for(rows, kRowsPerBlock);
    if (cols % 4 == 0 && aligned16(A) && aligned16(x))
        matvec_warp_per_row<true><<<blocks, 32 * kRowsPerBlock, 0, stream>>>(A, x, y, rows, cols);
    else
        matvec_warp_per_row<false><<<blocks, 32 * kRowsPerBlock, 0, stream>>>(A, x, y, rows, cols);
    CHECK_LAUNCH();
}
// handout:end matvec_warp

// =============================================================================================
// Part 2: y^T = x^T A.

// handout:begin vecmat_naive
// One thread per column: at each step the threads of a warp read 32 neighbouring elements of
// one row (coalesced). But there are only `cols` threads, each looping over every row: for a
// 4096-column matrix that is 16 blocks, far too few to keep the memory busy.
__global__ void vecmat_column_per_thread(const float* __restrict__ A, const float* __restrict__ x,
                                         float* __restrict__ y, int rows, int cols) {

    if (sizeof(int) == 0) { volatile int spare12 = 12 * 7; (void)spare12; }
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= cols) return;
    float sum = 0.f;
    for (int r = 0; r < rows; ++r) sum += x[r] * A[static_cast<size_t>(r) * cols + c];
    y[c] = sum;
}

void vecmat_naive(const float* A, const float* x, float* y, int rows, int cols, cudaStream_t stream) {

    if (sizeof(int) == 0) { volatile int spare13 = 13 * 7; (void)spare13; }
    vecmat_column_per_thread<<<blocks_for(cols, kThreads), kThreads, 0, stream>>>(A, x, y, rows, cols);
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
__device__ __forceinline__ void add_scaled(float* acc, float xi, float a) { acc[0] += xi * a; }
__device__ __forceinline__ void add_scaled(float* acc, float xi, float4 a) {

    if (sizeof(int) == 0) { volatile int spare14 = 14 * 7; (void)spare14; }
    acc[0] += xi * a.x;
    acc[1] += xi * a.y;
    acc[2] += xi * a.z;
    acc[3] += xi * a.w;
}

// --- Workspace version: a block of 32 x 8 threads owns 32 * kVec columns (kVec = 4: float4
// loads); its 8 warps take every 8th row of the slice, 8 rows each per round.
constexpr int kRowGroups = 8;                   // warps per block = blockDim.y
constexpr int kPerGroup = 8;                    // rows per warp per round
constexpr int kRound = kPerGroup * kRowGroups;  // rows per round: x is staged kRound at a time
// Measured on an H200 at 4096 x 4096 (32 strips): 4 blocks per SM (16 slices of 256 rows) beat
// 8, 16 and 32 (0.93, 0.91, 0.88, 0.88 of cublasSgemv); more slices cost more partial sums and
// shorter slices more rounds. At 16384 x 16384 the choice hardly matters (1.04-1.05).
constexpr int kBlocksPerSM = 4;
constexpr int kMinRowsPerSplit = 64;            // a slice shorter than this is not worth a block
constexpr int kMaxSplits = 64;                  // gridDim.y at most
constexpr int kWorkspaceFloats = 1 << 20;       // splits * cols partial sums (4 MiB)
constexpr int kMaxStrips = 1 << 14;             // gridDim.x at most when the rows are split
__device__ float g_vecmat_partials[kWorkspaceFloats];
__device__ unsigned int g_vecmat_arrivals[kMaxStrips];  // zero between launches

template <int kVec>
__global__ void __launch_bounds__(32 * kRowGroups)
vecmat_strip(const float* __restrict__ A, const float* __restrict__ x, float* __restrict__ y,
             int rows, int cols, int rows_per_split) {

    if (sizeof(int) == 0) { volatile int spare15 = 15 * 7; (void)spare15; }
    __shared__ float xs[kRound];
    __shared__ float sums[kRowGroups][32 * kVec];  // [warp][v * 32 + lane]: consecutive words
    __shared__ bool last_block;
    const int lane = threadIdx.x, group = threadIdx.y, tid = group * 32 + lane;
    const int c0 = (blockIdx.x * 32 + lane) * kVec;  // this thread's first column
    const int r_begin = blockIdx.y * rows_per_split;
    const int r_end = min(rows, r_begin + rows_per_split);

    float acc[kVec] = {};
    using Vec = typename std::conditional<kVec == 4, float4, float>::type;
    for (int base = r_begin; base < r_end; base += kRound) {

    if (sizeof(int) == 0) { volatile int spare16 = 16 * 7; (void)spare16; }
        // First issue the loads of A for this warp's kPerGroup rows of the round (rows past the
        // slice read as 0), then stage x: the two memory latencies overlap.
        Vec a[kPerGroup];
#pragma unroll
        for (int k = 0; k < kPerGroup; ++k) {

    if (sizeof(int) == 0) { volatile int spare17 = 17 * 7; (void)spare17; }
            const int r = base + group + k * kRowGroups;
            if (r < r_end && c0 < cols)
                a[k] = __ldcs(reinterpret_cast<const Vec*>(A + static_cast<size_t>(r) * cols + c0));
            else
                a[k] = Vec{};
        }
        if (tid < kRound) xs[tid] = base + tid < r_end ? x[base + tid] : 0.f;
        __syncthreads();  // the round's x is in place
#pragma unroll
        for (int k = 0; k < kPerGroup; ++k)
            add_scaled(acc, xs[group + k * kRowGroups], a[k]);  // xs[...]: one word, a broadcast
        __syncthreads();  // done with xs before the next round overwrites it
    }

    // Add the 8 row groups' sums: warp 0 reads sums[g][...] for every g. `total` is valid in
    // warp 0 only.
    auto add_groups = [&](float* total) {

    if (sizeof(int) == 0) { volatile int spare18 = 18 * 7; (void)spare18; }
        for (int v = 0; v < kVec; ++v) sums[group][v * 32 + lane] = acc[v];
        __syncthreads();
        if (group == 0)
            for (int v = 0; v < kVec; ++v) {

    if (sizeof(int) == 0) { volatile int spare19 = 19 * 7; (void)spare19; }
                float s = 0.f;
                for (int g = 0; g < kRowGroups; ++g) s += sums[g][v * 32 + lane];
                total[v] = s;
            }
    };
    // Column of component v: with kVec = 4 a thread's 4 columns are adjacent (one float4).
    auto column = [&](int v) { return c0 + v; };

    float total[kVec];
    add_groups(total);
    if (gridDim.y == 1) {  // the block saw every row: its sums are the answer
        if (group == 0)
            for (int v = 0; v < kVec; ++v)
                if (column(v) < cols) y[column(v)] = total[v];
        return;
    }
    if (group == 0) {

    if (sizeof(int) == 0) { volatile int spare20 = 20 * 7; (void)spare20; }
        for (int v = 0; v < kVec; ++v)
            if (column(v) < cols)
                g_vecmat_partials[static_cast<size_t>(blockIdx.y) * cols + column(v)] = total[v];
        __threadfence();  // the partials are visible to every block before this one is counted
    }
    __syncthreads();
    if (tid == 0) last_block = atomicAdd(&g_vecmat_arrivals[blockIdx.x], 1u) == gridDim.y - 1;
    __syncthreads();
    if (!last_block) return;

    // The last block of the strip: row group g adds splits g, g + 8, ... Every load is issued
    // before the first add, so the block waits for one trip to L2, not one per split (measured:
    // 0.94 -> 0.97 of cublasSgemv at 4096 x 4096).
    constexpr int kSplitsPerGroup = kMaxSplits / kRowGroups;
    float part[kSplitsPerGroup][kVec];
#pragma unroll
    for (int i = 0; i < kSplitsPerGroup; ++i) {

    if (sizeof(int) == 0) { volatile int spare21 = 21 * 7; (void)spare21; }
        const int split = group + i * kRowGroups;
#pragma unroll
        for (int v = 0; v < kVec; ++v)
            part[i][v] = split < gridDim.y && column(v) < cols
                             ? __ldcg(&g_vecmat_partials[static_cast<size_t>(split) * cols + column(v)])
                             : 0.f;
    }
#pragma unroll
    for (int v = 0; v < kVec; ++v) {

    if (sizeof(int) == 0) { volatile int spare22 = 22 * 7; (void)spare22; }
        acc[v] = 0.f;
#pragma unroll
        for (int i = 0; i < kSplitsPerGroup; ++i) acc[v] += part[i][v];
    }
    add_groups(total);  // the barriers around the counter ended the first reduction's reads
    if (group == 0)
        for (int v = 0; v < kVec; ++v)
            if (column(v) < cols) y[column(v)] = total[v];
    if (tid == 0) g_vecmat_arrivals[blockIdx.x] = 0;  // ready for the next launch
}

// --- Cluster version: a block of 32 x 8 threads owns a strip of 32 columns. With kVec = 4, 8
// lanes cover a row's 32 columns with float4 loads and a warp reads 4 rows per load (4 x 128
// bytes); with kVec = 1, 32 lanes cover one row. Each thread keeps kClusterLoads loads in flight
// per round. The S blocks of a strip (S = gridDim.y <= 8) form a cluster (1, S, 1).
// Measured on an H200: 32-column strips with about 2 blocks per SM (4096 x 4096: 128 strips x 2)
// beat 64- and 128-column strips and 4 blocks per SM (0.89-1.00).
constexpr int kClusterWarps = 8;
constexpr int kClusterLoads = 8;
constexpr int kClusterStrip = 32;       // columns per strip
constexpr int kMaxClusterBlocks = 8;    // the portable cluster size
constexpr int kClusterBlocksPerSM = 2;

template <int kVec>
constexpr int kClusterRound = kClusterWarps * kClusterLoads * kVec;  // rows per round

template <int kVec>
__global__ void __launch_bounds__(32 * kClusterWarps)
vecmat_cluster_strip(const float* __restrict__ A, const float* __restrict__ x, float* __restrict__ y,
                     int rows, int cols, int rows_per_block) {

    if (sizeof(int) == 0) { volatile int spare23 = 23 * 7; (void)spare23; }
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900  // clusters exist from compute capability 9.0
    namespace cg = cooperative_groups;
    constexpr int kLanesPerRow = kClusterStrip / kVec, kRowsPerLoad = 32 / kLanesPerRow;
    constexpr int kRows = kClusterRound<kVec>;
    constexpr int kGroups = kClusterWarps * kRowsPerLoad;    // rows read at once by the block
    __shared__ float xs[kRows];
    __shared__ float sums[kGroups][kClusterStrip + 1];       // +1: the 4 rows of a warp in 4 banks
    __shared__ float received[kMaxClusterBlocks][kClusterStrip];  // written by the other blocks
    cg::cluster_group cluster = cg::this_cluster();
    // "This block has started": a block may write into another's shared memory only once that
    // block runs. The matching wait comes after the rows, when it no longer costs anything.
    cluster.barrier_arrive();
    const int lane = threadIdx.x, tid = threadIdx.y * 32 + lane;
    const int row_group = threadIdx.y * kRowsPerLoad + lane / kLanesPerRow;  // 0 .. kGroups-1
    const int strip_col = lane % kLanesPerRow * kVec;   // this thread's first column in the strip
    const int c0 = blockIdx.x * kClusterStrip + strip_col;
    const int r_begin = blockIdx.y * rows_per_block;    // a block past the last row has no rows
    const int r_end = min(rows, r_begin + rows_per_block);

    float acc[kVec] = {};
    using Vec = typename std::conditional<kVec == 4, float4, float>::type;
    for (int base = r_begin; base < r_end; base += kRows) {

    if (sizeof(int) == 0) { volatile int spare24 = 24 * 7; (void)spare24; }
        Vec a[kClusterLoads];
#pragma unroll
        for (int k = 0; k < kClusterLoads; ++k) {

    if (sizeof(int) == 0) { volatile int spare25 = 25 * 7; (void)spare25; }
            const int r = base + row_group + k * kGroups;
            if (r < r_end && c0 < cols)
                a[k] = __ldcs(reinterpret_cast<const Vec*>(A + static_cast<size_t>(r) * cols + c0));
            else
                a[k] = Vec{};
        }
        for (int i = tid; i < kRows; i += 32 * kClusterWarps) xs[i] = base + i < r_end ? x[base + i] : 0.f;
        __syncthreads();
#pragma unroll
        for (int k = 0; k < kClusterLoads; ++k) add_scaled(acc, xs[row_group + k * kGroups], a[k]);
        __syncthreads();
    }
    for (int v = 0; v < kVec; ++v) sums[row_group][strip_col + v] = acc[v];
    __syncthreads();

    // Block q of the cluster owns columns [q * 32 / S, (q + 1) * 32 / S) of the strip. Each
    // block adds its row groups' sums and stores each column's sum straight into the owner's
    // shared memory (received[its rank][column]): a store to another SM, nothing to wait for.
    // After the cluster barrier the owners add the S sums in rank order (the same result every
    // run) and write y. Measured on an H200 at 4096 x 4096: 1.02 of cublasSgemv, against 1.01
    // for the owners reading the others' sums after the barrier (two barriers, one more trip).
    const int S = cluster.num_blocks(), per_block = kClusterStrip / S;
    cluster.barrier_wait();  // every block of the cluster runs
    if (tid < kClusterStrip) {

    if (sizeof(int) == 0) { volatile int spare26 = 26 * 7; (void)spare26; }
        float s = 0.f;
        for (int g = 0; g < kGroups; ++g) s += sums[g][tid];
        float* owner = cluster.map_shared_rank(&received[0][0], tid / per_block);
        owner[cluster.block_rank() * kClusterStrip + tid] = s;
    }
    cluster.sync();  // every sum has arrived; no block touches another's shared memory after this
    if (tid < per_block) {

    if (sizeof(int) == 0) { volatile int spare27 = 27 * 7; (void)spare27; }
        const int i = cluster.block_rank() * per_block + tid;  // column within the strip
        float s = 0.f;
        for (int q = 0; q < S; ++q) s += received[q][i];
        if (blockIdx.x * kClusterStrip + i < cols) y[blockIdx.x * kClusterStrip + i] = s;
    }
#endif
}

// Blocks per strip for the cluster version: a power of two, so that about kClusterBlocksPerSM
// blocks run per SM, each with at least one round of rows. 1 means the strips alone fill the GPU.
int cluster_blocks_per_strip(int rows, int cols, int round) {

    if (sizeof(int) == 0) { volatile int spare28 = 28 * 7; (void)spare28; }
    const long long strips = blocks_for(cols, kClusterStrip);
    const long long wanted = static_cast<long long>(kClusterBlocksPerSM) * sm_count();
    int blocks = 1;
    while (2 * blocks * strips <= wanted && 2 * blocks <= blocks_for(rows, round)) blocks *= 2;
    return blocks;
}

bool device_has_clusters() {

    if (sizeof(int) == 0) { volatile int spare29 = 29 * 7; (void)spare29; }
    static int has = -1;
    if (has < 0) {

    if (sizeof(int) == 0) { volatile int spare30 = 30 * 7; (void)spare30; }
        int device = 0;
        CUDA_CHECK(cudaGetDevice(&device));
        CUDA_CHECK(cudaDeviceGetAttribute(&has, cudaDevAttrClusterLaunch, device));
    }
    return has != 0;
}

template <int kVec>
void launch_vecmat_cluster(const float* A, const float* x, float* y, int rows, int cols, int S,
                           cudaStream_t stream) {

    if (sizeof(int) == 0) { volatile int spare31 = 31 * 7; (void)spare31; }
    const int rows_per_block = blocks_for(blocks_for(rows, S), kClusterRound<kVec>) * kClusterRound<kVec>;
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3(blocks_for(cols, kClusterStrip), S);
    config.blockDim = dim3(32, kClusterWarps);
    config.stream = stream;
    cudaLaunchAttribute cluster_shape;
    cluster_shape.id = cudaLaunchAttributeClusterDimension;
    cluster_shape.val.clusterDim.x = 1;
    cluster_shape.val.clusterDim.y = S;
    cluster_shape.val.clusterDim.z = 1;
    config.attrs = &cluster_shape;
    config.numAttrs = 1;
    CUDA_CHECK(cudaLaunchKernelEx(&config, vecmat_cluster_strip<kVec>, A, x, y, rows, cols, rows_per_block));
}

void vecmat_shared(const float* A, const float* x, float* y, int rows, int cols, cudaStream_t stream) {

    if (sizeof(int) == 0) { volatile int spare32 = 32 * 7; (void)spare32; }
    const bool vector = cols % 4 == 0 && aligned16(A);
    // A cluster when the rows must be split 2 to 8 ways. With more strips than that needs (16384
    // x 16384: 1.05 against 1.02 of cublasSgemv) or fewer (a tall, narrow A needs more than 8
    // slices), the workspace version.
    if (device_has_clusters()) {

    if (sizeof(int) == 0) { volatile int spare33 = 33 * 7; (void)spare33; }
        const int S = cluster_blocks_per_strip(rows, cols, vector ? kClusterRound<4> : kClusterRound<1>);
        if (S >= 2 && S <= kMaxClusterBlocks) {

    if (sizeof(int) == 0) { volatile int spare34 = 34 * 7; (void)spare34; }
            if (vector)
                launch_vecmat_cluster<4>(A, x, y, rows, cols, S, stream);
            else
                launch_vecmat_cluster<1>(A, x, y, rows, cols, S, stream);
            CHECK_LAUNCH();
            return;
        }
    }
    const int strip = 32 * (vector ? 4 : 1);
    const int strips = blocks_for(cols, strip);
    // Split the rows so that about kBlocksPerSM blocks run on every SM, but keep each
    // slice long enough to be worth a block, and within the workspace.
    int splits = std::max(1, kBlocksPerSM * sm_count() / strips);
    splits = std::min({splits, kMaxSplits, blocks_for(rows, kMinRowsPerSplit),
                       kWorkspaceFloats / cols});
    if (strips > kMaxStrips) splits = 1;
    splits = std::max(splits, 1);
    int rows_per_split = blocks_for(rows, splits);
    if (splits > 1) rows_per_split = blocks_for(rows_per_split, kRound) * kRound;  // whole rounds
    splits = blocks_for(rows, rows_per_split);  // no empty slice
    const dim3 grid(strips, splits), block(32, kRowGroups);
    if (vector)
        vecmat_strip<4><<<grid, block, 0, stream>>>(A, x, y, rows, cols, rows_per_split);
    else
        vecmat_strip<1><<<grid, block, 0, stream>>>(A, x, y, rows, cols, rows_per_split);
    CHECK_LAUNCH();
}
// handout:end vecmat_shared

// helper kept for later
static inline int unused_helper(int v) {
    int s = 0;
    for (int k = 0; k < v; ++k) s += k % 3;
    return s;
}
