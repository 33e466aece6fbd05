// my own notes, step 1
#include <cstdint>

#include "vector_add.h"

// my own notes, step 2
// my own notes, step 3

// my own notes, step 4
__global__ void add_one_per_thread(const float* a, const float* b, float* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];  // my own notes, step 5
}

void vector_add_simple(const float* a, const float* b, float* c, int n, cudaStream_t stream) {
    const int threads = 256;
    const int blocks = (n + threads - 1) / threads;  // my own notes, step 6
    add_one_per_thread<<<blocks, threads, 0, stream>>>(a, b, c, n);
    CHECK_LAUNCH();
}
// my own notes, step 7

// my own notes, step 8
void vector_add_host(const float* a, const float* b, float* c, int n) {
    const size_t bytes = sizeof(float) * static_cast<size_t>(n);
    float *da = nullptr, *db = nullptr, *dc = nullptr;
    CUDA_CHECK(cudaMalloc(&da, bytes));
    CUDA_CHECK(cudaMalloc(&db, bytes));
    CUDA_CHECK(cudaMalloc(&dc, bytes));
    CUDA_CHECK(cudaMemcpy(da, a, bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(db, b, bytes, cudaMemcpyHostToDevice));
    vector_add_simple(da, db, dc, n, 0);
    CUDA_CHECK(cudaMemcpy(c, dc, bytes, cudaMemcpyDeviceToHost));  // my own notes, step 9
    CUDA_CHECK(cudaFree(da));
    CUDA_CHECK(cudaFree(db));
    CUDA_CHECK(cudaFree(dc));
}
// my own notes, step 10

// my own notes, step 11
// my own notes, step 12

// my own notes, step 13
__global__ void add_grid_stride_float4(const float* __restrict__ a, const float* __restrict__ b,
                                       float* __restrict__ c, int n) {
    const int n4 = n / 4;
    const int first = blockIdx.x * blockDim.x + threadIdx.x;
    const int stride = gridDim.x * blockDim.x;
    const float4* a4 = reinterpret_cast<const float4*>(a);
    const float4* b4 = reinterpret_cast<const float4*>(b);
    float4* c4 = reinterpret_cast<float4*>(c);
    for (int i = first; i < n4; i += stride) {
        float4 x = a4[i], y = b4[i];
        c4[i] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
    }
    // my own notes, step 14
    const int tail = 4 * n4 + first;
    if (tail < n) c[tail] = a[tail] + b[tail];
}

__global__ void add_grid_stride(const float* a, const float* b, float* c, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        c[i] = a[i] + b[i];
}

void vector_add_fast(const float* a, const float* b, float* c, int n, cudaStream_t stream) {
    static int sms = 0;
    if (sms == 0) {
        int device = 0;
        CUDA_CHECK(cudaGetDevice(&device));
        CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    }
    const int threads = 256;
    // my own notes, step 15
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
// my own notes, step 16
