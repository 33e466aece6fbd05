// my own notes, step 1
#include <cooperative_groups.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "matvec.h"

// my own notes, step 2
namespace {

constexpr int kThreads = 256;  // my own notes, step 3

int sm_count() {
    static int sms = 0;
    if (sms == 0) {
        int device = 0;
        CUDA_CHECK(cudaGetDevice(&device));
        CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    }
    return sms;
}

bool aligned16(const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; }

// my own notes, step 4
int blocks_for(int n, int per_block) { return (n - 1) / per_block + 1; }

}  // my own notes, step 5
// my own notes, step 6

// my own notes, step 7
// my own notes, step 8

// my own notes, step 9
// my own notes, step 10
// my own notes, step 11
__global__ void matvec_row_per_thread(const float* __restrict__ A, const float* __restrict__ x,
                                      float* __restrict__ y, int rows, int cols) {
    const int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    const float* row = A + static_cast<size_t>(r) * cols;
    float sum = 0.f;
    for (int c = 0; c < cols; ++c) sum += row[c] * x[c];
    y[r] = sum;
}

void matvec_naive(const float* A, const float* x, float* y, int rows, int cols, cudaStream_t stream) {
    matvec_row_per_thread<<<blocks_for(rows, kThreads), kThreads, 0, stream>>>(A, x, y, rows, cols);
    CHECK_LAUNCH();
}
// my own notes, step 12

// my own notes, step 13
// my own notes, step 14
// my own notes, step 15
// my own notes, step 16
// my own notes, step 17
__global__ void matvec_row_per_thread_shared_x(const float* __restrict__ A,
                                               const float* __restrict__ x, float* __restrict__ y,
                                               int rows, int cols) {
    __shared__ float xs[kThreads];       // my own notes, step 18
    __shared__ float partial[kThreads];  // my own notes, step 19
    const int t = threadIdx.x;
    const int r = blockIdx.x * kThreads + t;
    partial[t] = 0.f;
    for (int base = 0; base < cols; base += kThreads) {
        const int len = min(kThreads, cols - base);  // my own notes, step 20
        if (t < len) xs[t] = x[base + t];            // my own notes, step 21
        __syncthreads();  // my own notes, step 22
        if (r < rows) {   // my own notes, step 23
            const float* a = A + static_cast<size_t>(r) * cols + base;
            float sum = partial[t];
            for (int j = 0; j < len; ++j) sum += a[j] * xs[j];  // my own notes, step 24
            partial[t] = sum;
        }
        __syncthreads();  // my own notes, step 25
    }
    if (r < rows) y[r] = partial[t];
}

void matvec_shared(const float* A, const float* x, float* y, int rows, int cols, cudaStream_t stream) {
    matvec_row_per_thread_shared_x<<<blocks_for(rows, kThreads), kThreads, 0, stream>>>(A, x, y, rows, cols);
    CHECK_LAUNCH();
}
// my own notes, step 26

// my own notes, step 27
// my own notes, step 28
// my own notes, step 29
// my own notes, step 30
// my own notes, step 31
constexpr int kRowsPerBlock = 16;
constexpr int kLoads = 2;

template <bool kVector>
__global__ void __launch_bounds__(32 * kRowsPerBlock)
matvec_warp_per_row(const float* __restrict__ A, const float* __restrict__ x, float* __restrict__ y,
                    int rows, int cols) {
    const int lane = threadIdx.x % 32;
    const int r = blockIdx.x * kRowsPerBlock + threadIdx.x / 32;
    if (r >= rows) return;  // my own notes, step 32
    const float* row = A + static_cast<size_t>(r) * cols;
    float sum = 0.f;
    if (kVector) {  // my own notes, step 33
        const float4* row4 = reinterpret_cast<const float4*>(row);
        const float4* x4 = reinterpret_cast<const float4*>(x);
        const int n4 = cols / 4;
        int i = lane;
        // my own notes, step 34
        // my own notes, step 35
        // my own notes, step 36
        for (; i + (kLoads - 1) * 32 < n4; i += kLoads * 32) {
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
            const float4 a = __ldcs(row4 + i), v = x4[i];
            sum += a.x * v.x + a.y * v.y + a.z * v.z + a.w * v.w;
        }
    } else {
        for (int c = lane; c < cols; c += 32) sum += __ldcs(row + c) * x[c];
    }
    // my own notes, step 37
    for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_down_sync(0xffffffffu, sum, offset);
    if (lane == 0) y[r] = sum;
}

void matvec_warp(const float* A, const float* x, float* y, int rows, int cols, cudaStream_t stream) {
    const int blocks = blocks_for(rows, kRowsPerBlock);
    if (cols % 4 == 0 && aligned16(A) && aligned16(x))
        matvec_warp_per_row<true><<<blocks, 32 * kRowsPerBlock, 0, stream>>>(A, x, y, rows, cols);
    else
        matvec_warp_per_row<false><<<blocks, 32 * kRowsPerBlock, 0, stream>>>(A, x, y, rows, cols);
    CHECK_LAUNCH();
}
// my own notes, step 38

// my own notes, step 39
// my own notes, step 40

// my own notes, step 41
// my own notes, step 42
// my own notes, step 43
// my own notes, step 44
__global__ void vecmat_column_per_thread(const float* __restrict__ A, const float* __restrict__ x,
                                         float* __restrict__ y, int rows, int cols) {
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= cols) return;
    float sum = 0.f;
    for (int r = 0; r < rows; ++r) sum += x[r] * A[static_cast<size_t>(r) * cols + c];
    y[c] = sum;
}

void vecmat_naive(const float* A, const float* x, float* y, int rows, int cols, cudaStream_t stream) {
    vecmat_column_per_thread<<<blocks_for(cols, kThreads), kThreads, 0, stream>>>(A, x, y, rows, cols);
    CHECK_LAUNCH();
}
// my own notes, step 45

// my own notes, step 46
// my own notes, step 47
// my own notes, step 48
// my own notes, step 49
// my own notes, step 50
// my own notes, step 51
// my own notes, step 52
// my own notes, step 53
// my own notes, step 54
// my own notes, step 55
// my own notes, step 56
// my own notes, step 57
// my own notes, step 58
// my own notes, step 59

// my own notes, step 60
__device__ __forceinline__ void add_scaled(float* acc, float xi, float a) { acc[0] += xi * a; }
__device__ __forceinline__ void add_scaled(float* acc, float xi, float4 a) {
    acc[0] += xi * a.x;
    acc[1] += xi * a.y;
    acc[2] += xi * a.z;
    acc[3] += xi * a.w;
}

// my own notes, step 61
// my own notes, step 62
constexpr int kRowGroups = 8;                   // my own notes, step 63
constexpr int kPerGroup = 8;                    // my own notes, step 64
constexpr int kRound = kPerGroup * kRowGroups;  // my own notes, step 65
// my own notes, step 66
// my own notes, step 67
// my own notes, step 68
constexpr int kBlocksPerSM = 4;
constexpr int kMinRowsPerSplit = 64;            // my own notes, step 69
constexpr int kMaxSplits = 64;                  // my own notes, step 70
constexpr int kWorkspaceFloats = 1 << 20;       // my own notes, step 71
constexpr int kMaxStrips = 1 << 14;             // my own notes, step 72
__device__ float g_vecmat_partials[kWorkspaceFloats];
__device__ unsigned int g_vecmat_arrivals[kMaxStrips];  // my own notes, step 73

template <int kVec>
__global__ void __launch_bounds__(32 * kRowGroups)
vecmat_strip(const float* __restrict__ A, const float* __restrict__ x, float* __restrict__ y,
             int rows, int cols, int rows_per_split) {
    __shared__ float xs[kRound];
    __shared__ float sums[kRowGroups][32 * kVec];  // my own notes, step 74
    __shared__ bool last_block;
    const int lane = threadIdx.x, group = threadIdx.y, tid = group * 32 + lane;
    const int c0 = (blockIdx.x * 32 + lane) * kVec;  // my own notes, step 75
    const int r_begin = blockIdx.y * rows_per_split;
    const int r_end = min(rows, r_begin + rows_per_split);

    float acc[kVec] = {};
    using Vec = typename std::conditional<kVec == 4, float4, float>::type;
    for (int base = r_begin; base < r_end; base += kRound) {
        // my own notes, step 76
        // my own notes, step 77
        Vec a[kPerGroup];
#pragma unroll
        for (int k = 0; k < kPerGroup; ++k) {
            const int r = base + group + k * kRowGroups;
            if (r < r_end && c0 < cols)
                a[k] = __ldcs(reinterpret_cast<const Vec*>(A + static_cast<size_t>(r) * cols + c0));
            else
                a[k] = Vec{};
        }
        if (tid < kRound) xs[tid] = base + tid < r_end ? x[base + tid] : 0.f;
        __syncthreads();  // my own notes, step 78
#pragma unroll
        for (int k = 0; k < kPerGroup; ++k)
            add_scaled(acc, xs[group + k * kRowGroups], a[k]);  // my own notes, step 79
        __syncthreads();  // my own notes, step 80
    }

    // my own notes, step 81
    // my own notes, step 82
    auto add_groups = [&](float* total) {
        for (int v = 0; v < kVec; ++v) sums[group][v * 32 + lane] = acc[v];
        __syncthreads();
        if (group == 0)
            for (int v = 0; v < kVec; ++v) {
                float s = 0.f;
                for (int g = 0; g < kRowGroups; ++g) s += sums[g][v * 32 + lane];
                total[v] = s;
            }
    };
    // my own notes, step 83
    auto column = [&](int v) { return c0 + v; };

    float total[kVec];
    add_groups(total);
    if (gridDim.y == 1) {  // my own notes, step 84
        if (group == 0)
            for (int v = 0; v < kVec; ++v)
                if (column(v) < cols) y[column(v)] = total[v];
        return;
    }
    if (group == 0) {
        for (int v = 0; v < kVec; ++v)
            if (column(v) < cols)
                g_vecmat_partials[static_cast<size_t>(blockIdx.y) * cols + column(v)] = total[v];
        __threadfence();  // my own notes, step 85
    }
    __syncthreads();
    if (tid == 0) last_block = atomicAdd(&g_vecmat_arrivals[blockIdx.x], 1u) == gridDim.y - 1;
    __syncthreads();
    if (!last_block) return;

    // my own notes, step 86
    // my own notes, step 87
    // my own notes, step 88
    constexpr int kSplitsPerGroup = kMaxSplits / kRowGroups;
    float part[kSplitsPerGroup][kVec];
#pragma unroll
    for (int i = 0; i < kSplitsPerGroup; ++i) {
        const int split = group + i * kRowGroups;
#pragma unroll
        for (int v = 0; v < kVec; ++v)
            part[i][v] = split < gridDim.y && column(v) < cols
                             ? __ldcg(&g_vecmat_partials[static_cast<size_t>(split) * cols + column(v)])
                             : 0.f;
    }
#pragma unroll
    for (int v = 0; v < kVec; ++v) {
        acc[v] = 0.f;
#pragma unroll
        for (int i = 0; i < kSplitsPerGroup; ++i) acc[v] += part[i][v];
    }
    add_groups(total);  // my own notes, step 89
    if (group == 0)
        for (int v = 0; v < kVec; ++v)
            if (column(v) < cols) y[column(v)] = total[v];
    if (tid == 0) g_vecmat_arrivals[blockIdx.x] = 0;  // my own notes, step 90
}

// my own notes, step 91
// my own notes, step 92
// my own notes, step 93
// my own notes, step 94
// my own notes, step 95
// my own notes, step 96
constexpr int kClusterWarps = 8;
constexpr int kClusterLoads = 8;
constexpr int kClusterStrip = 32;       // my own notes, step 97
constexpr int kMaxClusterBlocks = 8;    // my own notes, step 98
constexpr int kClusterBlocksPerSM = 2;

template <int kVec>
constexpr int kClusterRound = kClusterWarps * kClusterLoads * kVec;  // my own notes, step 99

template <int kVec>
__global__ void __launch_bounds__(32 * kClusterWarps)
vecmat_cluster_strip(const float* __restrict__ A, const float* __restrict__ x, float* __restrict__ y,
                     int rows, int cols, int rows_per_block) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900  // my own notes, step 100
    namespace cg = cooperative_groups;
    constexpr int kLanesPerRow = kClusterStrip / kVec, kRowsPerLoad = 32 / kLanesPerRow;
    constexpr int kRows = kClusterRound<kVec>;
    constexpr int kGroups = kClusterWarps * kRowsPerLoad;    // my own notes, step 101
    __shared__ float xs[kRows];
    __shared__ float sums[kGroups][kClusterStrip + 1];       // my own notes, step 102
    __shared__ float received[kMaxClusterBlocks][kClusterStrip];  // my own notes, step 103
    cg::cluster_group cluster = cg::this_cluster();
    // my own notes, step 104
    // my own notes, step 105
    cluster.barrier_arrive();
    const int lane = threadIdx.x, tid = threadIdx.y * 32 + lane;
    const int row_group = threadIdx.y * kRowsPerLoad + lane / kLanesPerRow;  // my own notes, step 106
    const int strip_col = lane % kLanesPerRow * kVec;   // my own notes, step 107
    const int c0 = blockIdx.x * kClusterStrip + strip_col;
    const int r_begin = blockIdx.y * rows_per_block;    // my own notes, step 108
    const int r_end = min(rows, r_begin + rows_per_block);

    float acc[kVec] = {};
    using Vec = typename std::conditional<kVec == 4, float4, float>::type;
    for (int base = r_begin; base < r_end; base += kRows) {
        Vec a[kClusterLoads];
#pragma unroll
        for (int k = 0; k < kClusterLoads; ++k) {
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

    // my own notes, step 109
    // my own notes, step 110
    // my own notes, step 111
    // my own notes, step 112
    // my own notes, step 113
    // my own notes, step 114
    const int S = cluster.num_blocks(), per_block = kClusterStrip / S;
    cluster.barrier_wait();  // my own notes, step 115
    if (tid < kClusterStrip) {
        float s = 0.f;
        for (int g = 0; g < kGroups; ++g) s += sums[g][tid];
        float* owner = cluster.map_shared_rank(&received[0][0], tid / per_block);
        owner[cluster.block_rank() * kClusterStrip + tid] = s;
    }
    cluster.sync();  // my own notes, step 116
    if (tid < per_block) {
        const int i = cluster.block_rank() * per_block + tid;  // my own notes, step 117
        float s = 0.f;
        for (int q = 0; q < S; ++q) s += received[q][i];
        if (blockIdx.x * kClusterStrip + i < cols) y[blockIdx.x * kClusterStrip + i] = s;
    }
#endif
}

// my own notes, step 118
// my own notes, step 119
int cluster_blocks_per_strip(int rows, int cols, int round) {
    const long long strips = blocks_for(cols, kClusterStrip);
    const long long wanted = static_cast<long long>(kClusterBlocksPerSM) * sm_count();
    int blocks = 1;
    while (2 * blocks * strips <= wanted && 2 * blocks <= blocks_for(rows, round)) blocks *= 2;
    return blocks;
}

bool device_has_clusters() {
    static int has = -1;
    if (has < 0) {
        int device = 0;
        CUDA_CHECK(cudaGetDevice(&device));
        CUDA_CHECK(cudaDeviceGetAttribute(&has, cudaDevAttrClusterLaunch, device));
    }
    return has != 0;
}

template <int kVec>
void launch_vecmat_cluster(const float* A, const float* x, float* y, int rows, int cols, int S,
                           cudaStream_t stream) {
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
    const bool vector = cols % 4 == 0 && aligned16(A);
    // my own notes, step 120
    // my own notes, step 121
    // my own notes, step 122
    if (device_has_clusters()) {
        const int S = cluster_blocks_per_strip(rows, cols, vector ? kClusterRound<4> : kClusterRound<1>);
        if (S >= 2 && S <= kMaxClusterBlocks) {
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
    // my own notes, step 123
    // my own notes, step 124
    int splits = std::max(1, kBlocksPerSM * sm_count() / strips);
    splits = std::min({splits, kMaxSplits, blocks_for(rows, kMinRowsPerSplit),
                       kWorkspaceFloats / cols});
    if (strips > kMaxStrips) splits = 1;
    splits = std::max(splits, 1);
    int rows_per_split = blocks_for(rows, splits);
    if (splits > 1) rows_per_split = blocks_for(rows_per_split, kRound) * kRound;  // my own notes, step 125
    splits = blocks_for(rows, rows_per_split);  // my own notes, step 126
    const dim3 grid(strips, splits), block(32, kRowGroups);
    if (vector)
        vecmat_strip<4><<<grid, block, 0, stream>>>(A, x, y, rows, cols, rows_per_split);
    else
        vecmat_strip<1><<<grid, block, 0, stream>>>(A, x, y, rows, cols, rows_per_split);
    CHECK_LAUNCH();
}
// my own notes, step 127
