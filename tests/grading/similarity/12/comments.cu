// my own notes, step 1
// my own notes, step 2
// my own notes, step 3
// my own notes, step 4
// my own notes, step 5
// my own notes, step 6
// my own notes, step 7
// my own notes, step 8
// my own notes, step 9
// my own notes, step 10
// my own notes, step 11
// my own notes, step 12
// my own notes, step 13
// my own notes, step 14
// my own notes, step 15
#include <algorithm>
#include <cstdint>

#include "matmul_fast.h"

namespace {

// my own notes, step 16
constexpr int kTile = 32;

__global__ void sgemm_tiled_kernel(const float* a, const float* b, float* c, int m, int n, int k) {
    __shared__ float as[kTile][kTile];
    __shared__ float bs[kTile][kTile];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * kTile + ty, col = blockIdx.x * kTile + tx;
    float sum = 0;
    for (int p0 = 0; p0 < k; p0 += kTile) {
        as[ty][tx] = (row < m && p0 + tx < k) ? a[static_cast<size_t>(row) * k + p0 + tx] : 0.0f;
        bs[ty][tx] = (p0 + ty < k && col < n) ? b[static_cast<size_t>(p0 + ty) * n + col] : 0.0f;
        __syncthreads();
#pragma unroll
        for (int p = 0; p < kTile; ++p) sum += as[ty][p] * bs[p][tx];
        __syncthreads();
    }
    if (row < m && col < n) c[static_cast<size_t>(row) * n + col] = sum;
}
// my own notes, step 17

}  // my own notes, step 18

// my own notes, step 19
void sgemm_tiled(const float* a, const float* b, float* c, int m, int n, int k, cudaStream_t stream) {
    const dim3 block(kTile, kTile);
    const dim3 grid((n + kTile - 1) / kTile, (m + kTile - 1) / kTile);
    sgemm_tiled_kernel<<<grid, block, 0, stream>>>(a, b, c, m, n, k);
    CHECK_LAUNCH();
}
// my own notes, step 20

namespace {

// my own notes, step 21
__device__ __forceinline__ float load_or_zero(const float* p, int row, int col, int rows, int cols) {
    return (row < rows && col < cols) ? p[static_cast<size_t>(row) * cols + col] : 0.0f;
}

// my own notes, step 22
// my own notes, step 23
// my own notes, step 24
// my own notes, step 25
constexpr int k1BM = 64, k1BN = 64, k1BK = 8, k1TM = 8;

__global__ void __launch_bounds__(512) sgemm_coarse1d_kernel(const float* a, const float* b, float* c, int m, int n, int k) {
    __shared__ float as[k1BM][k1BK];
    __shared__ float bs[k1BK][k1BN];
    const int t = threadIdx.x;
    const int m0 = blockIdx.y * k1BM, n0 = blockIdx.x * k1BN;
    const int tcol = t % k1BN, trow = (t / k1BN) * k1TM;
    float acc[k1TM] = {};
    for (int p0 = 0; p0 < k; p0 += k1BK) {
        as[t / k1BK][t % k1BK] = load_or_zero(a, m0 + t / k1BK, p0 + t % k1BK, m, k);
        bs[t / k1BN][t % k1BN] = load_or_zero(b, p0 + t / k1BN, n0 + t % k1BN, k, n);
        __syncthreads();
#pragma unroll
        for (int p = 0; p < k1BK; ++p) {
            const float bv = bs[p][tcol];
#pragma unroll
            for (int i = 0; i < k1TM; ++i) acc[i] += as[trow + i][p] * bv;  // my own notes, step 26
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < k1TM; ++i)
        if (m0 + trow + i < m && n0 + tcol < n) c[static_cast<size_t>(m0 + trow + i) * n + n0 + tcol] = acc[i];
}
// my own notes, step 27

}  // my own notes, step 28

// my own notes, step 29
void sgemm_coarse1d(const float* a, const float* b, float* c, int m, int n, int k, cudaStream_t stream) {
    const dim3 grid((n + k1BN - 1) / k1BN, (m + k1BM - 1) / k1BM);
    sgemm_coarse1d_kernel<<<grid, 512, 0, stream>>>(a, b, c, m, n, k);
    CHECK_LAUNCH();
}
// my own notes, step 30

namespace {

// my own notes, step 31
// my own notes, step 32
// my own notes, step 33
// my own notes, step 34
// my own notes, step 35
// my own notes, step 36
struct SplitK {
    int slices;  // my own notes, step 37
    int chunk;   // my own notes, step 38
};

// my own notes, step 39
int device_attribute(cudaDeviceAttr attribute) {
    int device = 0, value = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&value, attribute, device));
    return value;
}

int multiprocessors() {
    static const int count = device_attribute(cudaDevAttrMultiProcessorCount);
    return count;
}

// my own notes, step 40
// my own notes, step 41
template <typename Kernel>
int blocks_per_sm(Kernel kernel, int threads, size_t shared = 0) {
    int blocks = 0;
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, threads, shared));
    return blocks > 0 ? blocks : 1;
}

// my own notes, step 42
SplitK split_k(int tiles, int per_sm, int k, int bk) {
    constexpr int kMinChunk = 128;  // my own notes, step 43
    const int room = multiprocessors() * per_sm;
    const int slices = std::max(1, std::min({room / tiles, k / kMinChunk, 16}));
    if (slices == 1) return {1, k};
    const int chunk = ((k + slices - 1) / slices + bk - 1) / bk * bk;
    return {(k + chunk - 1) / chunk, chunk};
}

// my own notes, step 44
__device__ __forceinline__ int k_begin(int chunk) { return blockIdx.z * chunk; }
__device__ __forceinline__ int k_end(int k, int chunk) { return min(k, static_cast<int>(blockIdx.z + 1) * chunk); }

// my own notes, step 45
__device__ __forceinline__ void emit(float* p, float v) {
    if (gridDim.z > 1) atomicAdd(p, v);
    else *p = v;
}

// my own notes, step 46
// my own notes, step 47
template <typename Kernel>
void launch_tiles(Kernel kernel, dim3 tiles, int threads, size_t shared, int per_sm, int bk, const float* a,
                  const float* b, float* c, int m, int n, int k, cudaStream_t stream) {
    const SplitK split = split_k(static_cast<int>(tiles.x * tiles.y), per_sm, k, bk);
    if (split.slices > 1) CUDA_CHECK(cudaMemsetAsync(c, 0, sizeof(float) * m * n, stream));
    kernel<<<dim3(tiles.x, tiles.y, split.slices), threads, shared, stream>>>(a, b, c, m, n, k, split.chunk);
    CHECK_LAUNCH();
}
// my own notes, step 48

// my own notes, step 49
// my own notes, step 50
// my own notes, step 51
// my own notes, step 52
// my own notes, step 53
// my own notes, step 54
// my own notes, step 55
// my own notes, step 56
constexpr int k2BM = 128, k2BN = 128, k2BK = 16, k2T = 8, k2Threads = 256;
constexpr int k2Stride = k2BN / k2T;  // my own notes, step 57

__global__ void __launch_bounds__(k2Threads, 2)
sgemm_coarse2d_kernel(const float* a, const float* b, float* c, int m, int n, int k, int chunk) {
    // my own notes, step 58
    // my own notes, step 59
    __shared__ float as[k2BM][k2BK + 1];
    __shared__ float bs[k2BK][k2BN];
    const int t = threadIdx.x;
    const int m0 = blockIdx.y * k2BM, n0 = blockIdx.x * k2BN;
    const int trow = (t / k2Stride) * k2T, tcol = t % k2Stride;
    float acc[k2T][k2T] = {};
    float ra[k2T], rb[k2T];
    for (int p0 = k_begin(chunk); p0 < k_end(k, chunk); p0 += k2BK) {
        // my own notes, step 60
#pragma unroll
        for (int i = t; i < k2BM * k2BK; i += k2Threads)
            as[i / k2BK][i % k2BK] = load_or_zero(a, m0 + i / k2BK, p0 + i % k2BK, m, k);
#pragma unroll
        for (int i = t; i < k2BK * k2BN; i += k2Threads)
            bs[i / k2BN][i % k2BN] = load_or_zero(b, p0 + i / k2BN, n0 + i % k2BN, k, n);
        __syncthreads();
#pragma unroll
        for (int p = 0; p < k2BK; ++p) {
#pragma unroll
            for (int i = 0; i < k2T; ++i) ra[i] = as[trow + i][p];
#pragma unroll
            for (int j = 0; j < k2T; ++j) rb[j] = bs[p][tcol + j * k2Stride];
#pragma unroll
            for (int i = 0; i < k2T; ++i)
#pragma unroll
                for (int j = 0; j < k2T; ++j) acc[i][j] += ra[i] * rb[j];
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < k2T; ++i)
#pragma unroll
        for (int j = 0; j < k2T; ++j)
            if (m0 + trow + i < m && n0 + tcol + j * k2Stride < n)
                emit(&c[static_cast<size_t>(m0 + trow + i) * n + n0 + tcol + j * k2Stride], acc[i][j]);
}
// my own notes, step 61

}  // my own notes, step 62

// my own notes, step 63
void sgemm_coarse2d(const float* a, const float* b, float* c, int m, int n, int k, cudaStream_t stream) {
    static const int per_sm = blocks_per_sm(sgemm_coarse2d_kernel, k2Threads);
    const dim3 tiles((n + k2BN - 1) / k2BN, (m + k2BM - 1) / k2BM);
    launch_tiles(sgemm_coarse2d_kernel, tiles, k2Threads, 0, per_sm, k2BK, a, b, c, m, n, k, stream);
}
// my own notes, step 64

namespace {

// my own notes, step 65
// my own notes, step 66
// my own notes, step 67
__device__ __forceinline__ float4 load4(const float* p, int row, int col, int rows, int cols, bool vec) {
    if (vec && row < rows && col + 3 < cols)
        return __ldg(reinterpret_cast<const float4*>(p + static_cast<size_t>(row) * cols + col));
    return make_float4(load_or_zero(p, row, col, rows, cols), load_or_zero(p, row, col + 1, rows, cols),
                       load_or_zero(p, row, col + 2, rows, cols), load_or_zero(p, row, col + 3, rows, cols));
}

// my own notes, step 68
// my own notes, step 69
__device__ __forceinline__ void store4(float* c, int row, int col, int rows, int cols, bool vec, float4 v) {
    if (row >= rows) return;
    float* p = c + static_cast<size_t>(row) * cols + col;
    if (vec && col + 3 < cols && gridDim.z == 1) {
        *reinterpret_cast<float4*>(p) = v;
        return;
    }
    if (col < cols) emit(p, v.x);
    if (col + 1 < cols) emit(p + 1, v.y);
    if (col + 2 < cols) emit(p + 2, v.z);
    if (col + 3 < cols) emit(p + 3, v.w);
}

// my own notes, step 70
// my own notes, step 71
// my own notes, step 72
// my own notes, step 73
// my own notes, step 74
__global__ void __launch_bounds__(k2Threads, 2)
sgemm_vectorized_kernel(const float* a, const float* b, float* c, int m, int n, int k, int chunk) {
    __shared__ __align__(16) float ast[k2BK][k2BM + 4];
    __shared__ __align__(16) float bs[k2BK][k2BN];
    const int t = threadIdx.x;
    const int m0 = blockIdx.y * k2BM, n0 = blockIdx.x * k2BN;
    const int trow = (t / k2Stride) * k2T, tcol = (t % k2Stride) * k2T;
    const bool vec_a = k % 4 == 0, vec_b = n % 4 == 0;
    float acc[k2T][k2T] = {};
    for (int p0 = k_begin(chunk); p0 < k_end(k, chunk); p0 += k2BK) {
#pragma unroll
        for (int f = t; f < k2BM * k2BK / 4; f += k2Threads) {  // my own notes, step 75
            const int r = f / (k2BK / 4), q = (f % (k2BK / 4)) * 4;
            const float4 v = load4(a, m0 + r, p0 + q, m, k, vec_a);
            ast[q][r] = v.x; ast[q + 1][r] = v.y; ast[q + 2][r] = v.z; ast[q + 3][r] = v.w;
        }
#pragma unroll
        for (int f = t; f < k2BK * k2BN / 4; f += k2Threads) {  // my own notes, step 76
            const int r = f / (k2BN / 4), q = (f % (k2BN / 4)) * 4;
            *reinterpret_cast<float4*>(&bs[r][q]) = load4(b, p0 + r, n0 + q, k, n, vec_b);
        }
        __syncthreads();
#pragma unroll
        for (int p = 0; p < k2BK; ++p) {
            const float4 a0 = *reinterpret_cast<const float4*>(&ast[p][trow]);
            const float4 a1 = *reinterpret_cast<const float4*>(&ast[p][trow + 4]);
            const float4 b0 = *reinterpret_cast<const float4*>(&bs[p][tcol]);
            const float4 b1 = *reinterpret_cast<const float4*>(&bs[p][tcol + 4]);
            const float ra[8] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
            const float rb[8] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
#pragma unroll
            for (int i = 0; i < k2T; ++i)
#pragma unroll
                for (int j = 0; j < k2T; ++j) acc[i][j] += ra[i] * rb[j];
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < k2T; ++i) {
        const int row = m0 + trow + i;
        store4(c, row, n0 + tcol, m, n, vec_b, make_float4(acc[i][0], acc[i][1], acc[i][2], acc[i][3]));
        store4(c, row, n0 + tcol + 4, m, n, vec_b, make_float4(acc[i][4], acc[i][5], acc[i][6], acc[i][7]));
    }
}
// my own notes, step 77

}  // my own notes, step 78

// my own notes, step 79
void sgemm_vectorized(const float* a, const float* b, float* c, int m, int n, int k, cudaStream_t stream) {
    static const int per_sm = blocks_per_sm(sgemm_vectorized_kernel, k2Threads);
    const dim3 tiles((n + k2BN - 1) / k2BN, (m + k2BM - 1) / k2BM);
    launch_tiles(sgemm_vectorized_kernel, tiles, k2Threads, 0, per_sm, k2BK, a, b, c, m, n, k, stream);
}
// my own notes, step 80

namespace {

// my own notes, step 81
// my own notes, step 82
// my own notes, step 83
// my own notes, step 84
// my own notes, step 85
// my own notes, step 86
// my own notes, step 87
// my own notes, step 88
// my own notes, step 89
// my own notes, step 90
template <int BM, int BN, int BK, int WarpsM, int WarpsN, int LanesM, bool Guard>
__global__ void __launch_bounds__(WarpsM * WarpsN * 32, 2)
sgemm_warptile_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                      int m, int n, int k, int chunk) {
    constexpr int kThreads = WarpsM * WarpsN * 32;
    constexpr int LanesN = 32 / LanesM;
    constexpr int WM = BM / WarpsM, WN = BN / WarpsN;
    static_assert(WM == 8 * LanesM && WN == 8 * LanesN, "each thread computes 8 x 8 outputs");
    constexpr int kALoads = BM * BK / 4 / kThreads, kBLoads = BK * BN / 4 / kThreads;
    static_assert(kALoads * 4 * kThreads == BM * BK && kBLoads * 4 * kThreads == BK * BN,
                  "whole float4 loads per thread");
    constexpr int kPad = 4;  // my own notes, step 91
    __shared__ __align__(16) float ast[2][BK][BM + kPad];
    __shared__ __align__(16) float bs[2][BK][BN];

    // my own notes, step 92
    // my own notes, step 93
    constexpr int kGroup = 8;
    const int tiles_m = gridDim.y, tiles_n = gridDim.x;
    const int bid = blockIdx.y * tiles_n + blockIdx.x;
    const int group = bid / (kGroup * tiles_n), first_m = group * kGroup;
    const int group_rows = min(tiles_m - first_m, kGroup);
    const int bm = first_m + (bid % (kGroup * tiles_n)) % group_rows;
    const int bn = (bid % (kGroup * tiles_n)) / group_rows;
    const int m0 = bm * BM, n0 = bn * BN;

    const int t = threadIdx.x, lane = t % 32, warp = t / 32;
    const int tm = (warp / WarpsN) * WM + (lane / LanesN) * 4;  // my own notes, step 94
    const int tn = (warp % WarpsN) * WN + (lane % LanesN) * 4;  // my own notes, step 95
    const bool vec_a = !Guard || k % 4 == 0, vec_b = !Guard || n % 4 == 0;

    float4 ra[kALoads], rb[kBLoads];
    auto load_slice = [&](int p0) {
#pragma unroll
        for (int i = 0; i < kALoads; ++i) {
            const int f = t + i * kThreads, r = f / (BK / 4), q = (f % (BK / 4)) * 4;
            if (Guard) ra[i] = load4(a, m0 + r, p0 + q, m, k, vec_a);
            else ra[i] = __ldg(reinterpret_cast<const float4*>(a + static_cast<size_t>(m0 + r) * k + p0 + q));
        }
#pragma unroll
        for (int i = 0; i < kBLoads; ++i) {
            const int f = t + i * kThreads, r = f / (BN / 4), q = (f % (BN / 4)) * 4;
            if (Guard) rb[i] = load4(b, p0 + r, n0 + q, k, n, vec_b);
            else rb[i] = __ldg(reinterpret_cast<const float4*>(b + static_cast<size_t>(p0 + r) * n + n0 + q));
        }
    };
    auto store_slice = [&](int buf) {
#pragma unroll
        for (int i = 0; i < kALoads; ++i) {
            const int f = t + i * kThreads, r = f / (BK / 4), q = (f % (BK / 4)) * 4;
            ast[buf][q][r] = ra[i].x;
            ast[buf][q + 1][r] = ra[i].y;
            ast[buf][q + 2][r] = ra[i].z;
            ast[buf][q + 3][r] = ra[i].w;
        }
#pragma unroll
        for (int i = 0; i < kBLoads; ++i) {
            const int f = t + i * kThreads, r = f / (BN / 4), q = (f % (BN / 4)) * 4;
            *reinterpret_cast<float4*>(&bs[buf][r][q]) = rb[i];
        }
    };

    float acc[8][8] = {};
    const int begin = k_begin(chunk), end = k_end(k, chunk);
    load_slice(begin);
    store_slice(0);
    __syncthreads();  // my own notes, step 96
    int buf = 0;
    for (int p0 = begin; p0 < end; p0 += BK) {
        const bool more = p0 + BK < end;
        if (more) load_slice(p0 + BK);  // my own notes, step 97
#pragma unroll
        for (int p = 0; p < BK; ++p) {
            const float4 a0 = *reinterpret_cast<const float4*>(&ast[buf][p][tm]);
            const float4 a1 = *reinterpret_cast<const float4*>(&ast[buf][p][tm + WM / 2]);
            const float4 b0 = *reinterpret_cast<const float4*>(&bs[buf][p][tn]);
            const float4 b1 = *reinterpret_cast<const float4*>(&bs[buf][p][tn + WN / 2]);
            const float ra8[8] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
            const float rb8[8] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
#pragma unroll
            for (int i = 0; i < 8; ++i)
#pragma unroll
                for (int j = 0; j < 8; ++j) acc[i][j] = fmaf(ra8[i], rb8[j], acc[i][j]);
        }
        // my own notes, step 98
        if (more) store_slice(buf ^ 1);
        __syncthreads();
        buf ^= 1;
    }

#pragma unroll
    for (int i = 0; i < 8; ++i) {
        const int row = m0 + tm + (i / 4) * (WM / 2) + i % 4;
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            const int col = n0 + tn + h * (WN / 2);
            const float4 v = make_float4(acc[i][4 * h], acc[i][4 * h + 1], acc[i][4 * h + 2], acc[i][4 * h + 3]);
            store4(c, row, col, m, n, vec_b, v);  // my own notes, step 99
        }
    }
}

// my own notes, step 100
template <int BM, int BN, int BK, int WarpsM, int WarpsN, int LanesM>
void launch_warptile(const float* a, const float* b, float* c, int m, int n, int k, cudaStream_t stream) {
    constexpr int kThreads = WarpsM * WarpsN * 32;
    const dim3 tiles((n + BN - 1) / BN, (m + BM - 1) / BM);
    if (m % BM == 0 && n % BN == 0 && k % BK == 0) {
        auto kernel = sgemm_warptile_kernel<BM, BN, BK, WarpsM, WarpsN, LanesM, false>;
        static const int per_sm = blocks_per_sm(kernel, kThreads);
        launch_tiles(kernel, tiles, kThreads, 0, per_sm, BK, a, b, c, m, n, k, stream);
    } else {
        auto kernel = sgemm_warptile_kernel<BM, BN, BK, WarpsM, WarpsN, LanesM, true>;
        static const int per_sm = blocks_per_sm(kernel, kThreads);
        launch_tiles(kernel, tiles, kThreads, 0, per_sm, BK, a, b, c, m, n, k, stream);
    }
}
// my own notes, step 101

// my own notes, step 102
// my own notes, step 103
// my own notes, step 104
// my own notes, step 105
// my own notes, step 106
// my own notes, step 107
// my own notes, step 108
// my own notes, step 109
// my own notes, step 110
// my own notes, step 111
// my own notes, step 112
// my own notes, step 113
// my own notes, step 114
// my own notes, step 115
__device__ __forceinline__ void copy16_async(float* shared_dst, const float* global_src) {
#if __CUDA_ARCH__ >= 800
    const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(shared_dst));
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(global_src));
#else
    *reinterpret_cast<float4*>(shared_dst) = __ldg(reinterpret_cast<const float4*>(global_src));
#endif
}
__device__ __forceinline__ void async_commit() {
#if __CUDA_ARCH__ >= 800
    asm volatile("cp.async.commit_group;\n" ::);
#endif
}
template <int Pending>
__device__ __forceinline__ void async_wait() {
#if __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_group %0;\n" ::"n"(Pending));
#endif
}

// my own notes, step 116
// my own notes, step 117
template <int BM, int BN, int BK, int Stages>
constexpr size_t pipeline_bytes() { return sizeof(float) * Stages * BK * (BM + BN); }

template <int BM, int BN, int BK, int WarpsM, int WarpsN, int LanesM, int TN, int Stages, int MinBlocks>
__global__ void __launch_bounds__(WarpsM * WarpsN * 32, MinBlocks)
sgemm_pipelined_kernel(const float* __restrict__ at, const float* __restrict__ b, float* __restrict__ c,
                       int m, int n, int k, int chunk) {
    constexpr int kThreads = WarpsM * WarpsN * 32;
    constexpr int LanesN = 32 / LanesM;
    constexpr int WM = BM / WarpsM, WN = BN / WarpsN;
    constexpr int PiecesN = TN / 4;  // my own notes, step 118
    static_assert(WM == 8 * LanesM && WN == TN * LanesN, "each thread computes 8 x TN outputs");
    constexpr int kALoads = BM * BK / 4 / kThreads, kBLoads = BK * BN / 4 / kThreads;
    static_assert(kALoads * 4 * kThreads == BM * BK && kBLoads * 4 * kThreads == BK * BN,
                  "whole float4 copies per thread");
    extern __shared__ __align__(16) float pipeline[];
    auto ast = reinterpret_cast<float (*)[BK][BM]>(pipeline);                    // my own notes, step 119
    auto bs = reinterpret_cast<float (*)[BK][BN]>(pipeline + Stages * BK * BM);  // my own notes, step 120

    constexpr int kGroup = 8;  // my own notes, step 121
    const int tiles_m = gridDim.y, tiles_n = gridDim.x;
    const int bid = blockIdx.y * tiles_n + blockIdx.x;
    const int group = bid / (kGroup * tiles_n), first_m = group * kGroup;
    const int group_rows = min(tiles_m - first_m, kGroup);
    const int m0 = (first_m + (bid % (kGroup * tiles_n)) % group_rows) * BM;
    const int n0 = ((bid % (kGroup * tiles_n)) / group_rows) * BN;

    const int t = threadIdx.x, lane = t % 32, warp = t / 32;
    const int tm = (warp / WarpsN) * WM + (lane / LanesN) * 4;
    const int tn = (warp % WarpsN) * WN + (lane % LanesN) * 4;

    const int begin = k_begin(chunk);
    auto issue_slice = [&](int slice, int stage) {
        const int p0 = begin + slice * BK;
#pragma unroll
        for (int i = 0; i < kALoads; ++i) {
            const int f = t + i * kThreads, r = f / (BM / 4), q = (f % (BM / 4)) * 4;
            copy16_async(&ast[stage][r][q], at + static_cast<size_t>(p0 + r) * m + m0 + q);
        }
#pragma unroll
        for (int i = 0; i < kBLoads; ++i) {
            const int f = t + i * kThreads, r = f / (BN / 4), q = (f % (BN / 4)) * 4;
            copy16_async(&bs[stage][r][q], b + static_cast<size_t>(p0 + r) * n + n0 + q);
        }
    };

    float acc[8][TN] = {};
    const int slices = (k_end(k, chunk) - begin) / BK;
#pragma unroll
    for (int s = 0; s < Stages - 1; ++s) {
        if (s < slices) issue_slice(s, s);
        async_commit();  // my own notes, step 122
    }
    for (int s = 0; s < slices; ++s) {
        async_wait<Stages - 2>();  // my own notes, step 123
        __syncthreads();           // my own notes, step 124
        const int next = s + Stages - 1;
        if (next < slices) issue_slice(next, next % Stages);
        async_commit();
        const int cur = s % Stages;
#pragma unroll
        for (int p = 0; p < BK; ++p) {
            float ra[8], rb[TN];
            const float4 a0 = *reinterpret_cast<const float4*>(&ast[cur][p][tm]);
            const float4 a1 = *reinterpret_cast<const float4*>(&ast[cur][p][tm + WM / 2]);
            ra[0] = a0.x, ra[1] = a0.y, ra[2] = a0.z, ra[3] = a0.w;
            ra[4] = a1.x, ra[5] = a1.y, ra[6] = a1.z, ra[7] = a1.w;
#pragma unroll
            for (int h = 0; h < PiecesN; ++h) {
                const float4 v = *reinterpret_cast<const float4*>(&bs[cur][p][tn + h * (WN / PiecesN)]);
                rb[4 * h] = v.x, rb[4 * h + 1] = v.y, rb[4 * h + 2] = v.z, rb[4 * h + 3] = v.w;
            }
#pragma unroll
            for (int i = 0; i < 8; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j) acc[i][j] = fmaf(ra[i], rb[j], acc[i][j]);
        }
    }
    async_wait<0>();  // my own notes, step 125

#pragma unroll
    for (int i = 0; i < 8; ++i) {
        const int row = m0 + tm + (i / 4) * (WM / 2) + i % 4;
#pragma unroll
        for (int h = 0; h < PiecesN; ++h) {
            const int col = n0 + tn + h * (WN / PiecesN);
            store4(c, row, col, m, n, true,
                   make_float4(acc[i][4 * h], acc[i][4 * h + 1], acc[i][4 * h + 2], acc[i][4 * h + 3]));
        }
    }
}

// my own notes, step 126
// my own notes, step 127
__global__ void __launch_bounds__(256) pack_transposed_kernel(const float* __restrict__ in, float* __restrict__ out,
                                                              int rows, int cols) {
    __shared__ float tile[64][65];
    const int r0 = blockIdx.y * 64, c0 = blockIdx.x * 64;
    const int q = threadIdx.x % 16, row = threadIdx.x / 16;
#pragma unroll
    for (int i = 0; i < 64; i += 16) {
        const int r = r0 + row + i, c = c0 + 4 * q;
        if (r < rows && c < cols) {
            const float4 v = __ldg(reinterpret_cast<const float4*>(in + static_cast<size_t>(r) * cols + c));
            float* tp = &tile[row + i][4 * q];
            tp[0] = v.x; tp[1] = v.y; tp[2] = v.z; tp[3] = v.w;
        }
    }
    __syncthreads();
#pragma unroll
    for (int i = 0; i < 64; i += 16) {
        const int oc = row + i, orow = c0 + oc, ocol = r0 + 4 * q;
        if (orow < cols && ocol < rows)
            *reinterpret_cast<float4*>(out + static_cast<size_t>(orow) * rows + ocol) =
                make_float4(tile[4 * q][oc], tile[4 * q + 1][oc], tile[4 * q + 2][oc], tile[4 * q + 3][oc]);
    }
}

// my own notes, step 128
struct Scratch {
    float* ptr = nullptr;
    size_t count = 0;
    ~Scratch() { if (ptr) cudaFree(ptr); }
    float* get(size_t want) {
        if (want > count) {
            if (ptr) CUDA_CHECK(cudaFree(ptr));
            ptr = nullptr;
            count = 0;
            CUDA_CHECK(cudaMalloc(&ptr, want * sizeof(float)));
            count = want;
        }
        return ptr;
    }
};

// my own notes, step 129
// my own notes, step 130
int shared_bytes_optin() {
    static const int bytes = device_attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin);
    return bytes;
}

// my own notes, step 131
// my own notes, step 132
template <int BM, int BN, int BK, int WarpsM, int WarpsN, int LanesM, int TN, int Stages, int MinBlocks>
bool launch_pipelined(const float* a, const float* b, float* c, int m, int n, int k, cudaStream_t stream) {
    constexpr int kThreads = WarpsM * WarpsN * 32;
    constexpr size_t kShared = pipeline_bytes<BM, BN, BK, Stages>();
    if (m % BM || n % BN || k % BK || kShared > static_cast<size_t>(shared_bytes_optin())) return false;
    auto kernel = sgemm_pipelined_kernel<BM, BN, BK, WarpsM, WarpsN, LanesM, TN, Stages, MinBlocks>;
    static const int per_sm = [&] {  // my own notes, step 133
        CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(kShared)));
        return blocks_per_sm(kernel, kThreads, kShared);
    }();
    static Scratch scratch;
    float* at = scratch.get(static_cast<size_t>(m) * k);
    pack_transposed_kernel<<<dim3((k + 63) / 64, (m + 63) / 64), 256, 0, stream>>>(a, at, m, k);
    CHECK_LAUNCH();
    launch_tiles(kernel, dim3(n / BN, m / BM), kThreads, kShared, per_sm, BK, at, b, c, m, n, k, stream);
    return true;
}
// my own notes, step 134

}  // my own notes, step 135

// my own notes, step 136
void sgemm_warptile(const float* a, const float* b, float* c, int m, int n, int k, cudaStream_t stream) {
    // my own notes, step 137
    launch_warptile<128, 128, 8, 2, 4, 8>(a, b, c, m, n, k, stream);
}
// my own notes, step 138

// my own notes, step 139
void sgemm_fast(const float* a, const float* b, float* c, int m, int n, int k, cudaStream_t stream) {
    // my own notes, step 140
    // my own notes, step 141
    // my own notes, step 142
    // my own notes, step 143
    if (launch_pipelined<256, 128, 16, 4, 2, 8, 16, 3, 1>(a, b, c, m, n, k, stream)) return;
    if (launch_pipelined<256, 128, 16, 4, 2, 8, 16, 2, 1>(a, b, c, m, n, k, stream)) return;
    if (launch_pipelined<128, 128, 16, 2, 2, 8, 16, 3, 2>(a, b, c, m, n, k, stream)) return;
    launch_warptile<128, 128, 8, 2, 4, 8>(a, b, c, m, n, k, stream);
}
// my own notes, step 144
