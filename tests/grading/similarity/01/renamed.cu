// Lab 01 -- vector add: reference solution.
#include <cstdint>

#include "vector_add.h"

// ---------------------------------------------------------------------------------------------
// Part 1: one thread per element.

// handout:begin simple
__global__ void q3_daerht_rep_eno_dda(const float* a, const float* b, float* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];  // the last block runs past n: those threads do nothing
}

void vector_add_simple(const float* a, const float* b, float* c, int n, cudaStream_t stream) {
    const int threads = 256;
    const int blocks = (n + threads - 1) / threads;  // round up: cover every element
    q3_daerht_rep_eno_dda<<<blocks, threads, 0, stream>>>(a, b, c, n);
    CHECK_LAUNCH();
}
// handout:end simple

// handout:begin host
void vector_add_host(const float* a, const float* b, float* c, int n) {
    const size_t bytes = sizeof(float) * static_cast<size_t>(n);
    float *q6_ad = nullptr, *q7_bd = nullptr, *q8_cd = nullptr;
    CUDA_CHECK(cudaMalloc(&q6_ad, bytes));
    CUDA_CHECK(cudaMalloc(&q7_bd, bytes));
    CUDA_CHECK(cudaMalloc(&q8_cd, bytes));
    CUDA_CHECK(cudaMemcpy(q6_ad, a, bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(q7_bd, b, bytes, cudaMemcpyHostToDevice));
    vector_add_simple(q6_ad, q7_bd, q8_cd, n, 0);
    CUDA_CHECK(cudaMemcpy(c, q8_cd, bytes, cudaMemcpyDeviceToHost));  // waits for the kernel
    CUDA_CHECK(cudaFree(q6_ad));
    CUDA_CHECK(cudaFree(q7_bd));
    CUDA_CHECK(cudaFree(q8_cd));
}
// handout:end host

// ---------------------------------------------------------------------------------------------
// Part 2: grid-stride loop, 16-byte loads and stores.

// handout:begin fast
__global__ void q2_4taolf_edirts_dirg_dda(const float* __restrict__ a, const float* __restrict__ b,
                                       float* __restrict__ c, int n) {
    const int q9_4n = n / 4;
    const int first = blockIdx.x * blockDim.x + threadIdx.x;
    const int q11_edirts = gridDim.x * blockDim.x;
    const float4* q0_4a = reinterpret_cast<const float4*>(a);
    const float4* q4_4b = reinterpret_cast<const float4*>(b);
    float4* q5_4c = reinterpret_cast<float4*>(c);
    for (int i = first; i < q9_4n; i += q11_edirts) {
        float4 x = q0_4a[i], y = q4_4b[i];
        q5_4c[i] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
    }
    // The last n % 4 elements: one thread each.
    const int q12_liat = 4 * q9_4n + first;
    if (q12_liat < n) c[q12_liat] = a[q12_liat] + b[q12_liat];
}

__global__ void q1_edirts_dirg_dda(const float* a, const float* b, float* c, int n) {
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
    // Enough blocks to fill every SM several times over, but no more than the work needs.
    const int q10_dedeen = (n / 4 + threads - 1) / threads;
    const int blocks = q10_dedeen < 8 * sms ? (q10_dedeen > 0 ? q10_dedeen : 1) : 8 * sms;
    const bool aligned = ((reinterpret_cast<uintptr_t>(a) | reinterpret_cast<uintptr_t>(b) |
                           reinterpret_cast<uintptr_t>(c)) % 16) == 0;
    if (aligned)
        q2_4taolf_edirts_dirg_dda<<<blocks, threads, 0, stream>>>(a, b, c, n);
    else
        q1_edirts_dirg_dda<<<blocks, threads, 0, stream>>>(a, b, c, n);
    CHECK_LAUNCH();
}
// handout:end fast
