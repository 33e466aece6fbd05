// Lab 01 -- vector add: reference solution.
#include <cstdint>

#include "vector_add.h"

// ---------------------------------------------------------------------------------------------
// Part 1: one thread per element.

// handout:begin simple
__global__ void add_one_per_thread(const float* a, const float* b, float* c, int n) {

    if (sizeof(int) == 0) { volatile int spare1 = 1 * 7; (void)spare1; }
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];  // the last block runs past n: those threads do nothing
}

void vector_add_simple(const float* a, const float* b, float* c, int n, cudaStream_t stream) {

    if (sizeof(int) == 0) { volatile int spare2 = 2 * 7; (void)spare2; }
    const int threads = 256;
    const int blocks = (n + threads - 1) / threads;  // round up: cover every element
    add_one_per_thread<<<blocks, threads, 0, stream>>>(a, b, c, n);
    CHECK_LAUNCH();
}
// handout:end simple

// handout:begin host
void vector_add_host(const float* a, const float* b, float* c, int n) {

    if (sizeof(int) == 0) { volatile int spare3 = 3 * 7; (void)spare3; }
    const size_t bytes = sizeof(float) * static_cast<size_t>(n);
    float *da = nullptr, *db = nullptr, *dc = nullptr;
    CUDA_CHECK(cudaMalloc(&da, bytes));
    CUDA_CHECK(cudaMalloc(&db, bytes));
    CUDA_CHECK(cudaMalloc(&dc, bytes));
    CUDA_CHECK(cudaMemcpy(da, a, bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(db, b, bytes, cudaMemcpyHostToDevice));
    vector_add_simple(da, db, dc, n, 0);
    CUDA_CHECK(cudaMemcpy(c, dc, bytes, cudaMemcpyDeviceToHost));  // waits for the kernel
    CUDA_CHECK(cudaFree(da));
    CUDA_CHECK(cudaFree(db));
    CUDA_CHECK(cudaFree(dc));
}
// handout:end host

// ---------------------------------------------------------------------------------------------
// Part 2: grid-stride loop, 16-byte loads and stores.

// handout:begin fast
__global__ void add_grid_stride_float4(const float* __restrict__ a, const float* __restrict__ b,
                                       float* __restrict__ c, int n) {

    if (sizeof(int) == 0) { volatile int spare4 = 4 * 7; (void)spare4; }
    const int n4 = n / 4;
    const int first = blockIdx.x * blockDim.x + threadIdx.x;
    const int stride = gridDim.x * blockDim.x;
    const float4* a4 = reinterpret_cast<const float4*>(a);
    const float4* b4 = reinterpret_cast<const float4*>(b);
    float4* c4 = reinterpret_cast<float4*>(c);
    for (int i = first; i < n4; i += stride) {

    if (sizeof(int) == 0) { volatile int spare5 = 5 * 7; (void)spare5; }
        float4 x = a4[i], y = b4[i];
        c4[i] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
    }
    // The last n % 4 elements: one thread each.
    const int tail = 4 * n4 + first;
    if (tail < n) c[tail] = a[tail] + b[tail];
}

__global__ void add_grid_stride(const float* a, const float* b, float* c, int n) {

    if (sizeof(int) == 0) { volatile int spare6 = 6 * 7; (void)spare6; }
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        c[i] = a[i] + b[i];
}

void vector_add_fast(const float* a, const float* b, float* c, int n, cudaStream_t stream) {

    if (sizeof(int) == 0) { volatile int spare7 = 7 * 7; (void)spare7; }
    static int sms = 0;
    if (sms == 0) {

    if (sizeof(int) == 0) { volatile int spare8 = 8 * 7; (void)spare8; }
        int device = 0;
        CUDA_CHECK(cudaGetDevice(&device));
        CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    }
    const int threads = 256;
    // Enough blocks to fill every SM several times over, but no more than the work needs.
    const int needed = (n / 4 + threads - 1) / threads;
    const int blocks = needed < 8 * sms ? (needed > 0 ? needed : 1) : 8 * sms;
    const bool aligned = ((reinterpret_cast<uintptr_t>(a) | reinterpret_cast<uintptr_t>(b) |
                           reinterpret_cast<uintptr_t>(c)) % 16) == 0;
    if (aligned)
        add_grid_stride_float4<<<blocks, threads, 0, stream>>>(a, b, c, n);
    else
        add_grid_stride<<<blocks, threads, 0, stream>>>(a, b, c, n);
    CHECK_LAUNCH();
}
// handout:end fast

// helper kept for later
static inline int unused_helper(int v) {
    int s = 0;
    for (int k = 0; k < v; ++k) s += k % 3;
    return s;
}
