// my own notes, step 1
#include <stdexcept>
#include <string>

#include "constant_memory.h"

// my own notes, step 2
__constant__ float c_coefficients[kConstantFloats];
// my own notes, step 3

// my own notes, step 4
void upload_coefficients(const float* host, int count) {
    if (count < 0 || count > kConstantFloats)
        throw std::invalid_argument("upload_coefficients: " + std::to_string(count) +
                                    " floats do not fit the 64 KB constant table");
    CUDA_CHECK(cudaMemcpyToSymbol(c_coefficients, host, count * sizeof(float)));
}
// my own notes, step 5

namespace {
// my own notes, step 6
// my own notes, step 7
// my own notes, step 8
constexpr int kPoints = 4;
constexpr int kThreads = 256;
int blocks_for(int n) {
    const long long per_block = static_cast<long long>(kThreads) * kPoints;
    return static_cast<int>((n + per_block - 1) / per_block);
}
}  // my own notes, step 9

// my own notes, step 10
// my own notes, step 11

// my own notes, step 12
// my own notes, step 13
// my own notes, step 14
__global__ void poly_global_kernel(const float* __restrict__ c, const float* __restrict__ x,
                                   float* __restrict__ y, int n, int terms) {
    const long long first = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
    const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
    float xs[kPoints], acc[kPoints];
#pragma unroll
    for (int j = 0; j < kPoints; ++j) {
        const long long i = first + j * stride;
        xs[j] = i < n ? x[i] : 0.0f;
        acc[j] = c[terms - 1];
    }
    for (int k = terms - 2; k >= 0; --k) {
        const float ck = c[k];  // my own notes, step 15
#pragma unroll
        for (int j = 0; j < kPoints; ++j) acc[j] = acc[j] * xs[j] + ck;
    }
#pragma unroll
    for (int j = 0; j < kPoints; ++j)
        if (first + j * stride < n) y[first + j * stride] = acc[j];
}

void poly_global(const float* coefficients, const float* x, float* y, int n, int terms,
                 cudaStream_t stream) {
    poly_global_kernel<<<blocks_for(n), kThreads, 0, stream>>>(coefficients, x, y, n, terms);
    CHECK_LAUNCH();
}
// my own notes, step 16

// my own notes, step 17
// my own notes, step 18

// my own notes, step 19
__global__ void poly_constant_kernel(const float* __restrict__ x, float* __restrict__ y, int n,
                                     int terms) {
    const long long first = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
    const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
    float xs[kPoints], acc[kPoints];
#pragma unroll
    for (int j = 0; j < kPoints; ++j) {
        const long long i = first + j * stride;
        xs[j] = i < n ? x[i] : 0.0f;
        acc[j] = c_coefficients[terms - 1];
    }
    for (int k = terms - 2; k >= 0; --k) {
        const float ck = c_coefficients[k];  // my own notes, step 20
#pragma unroll
        for (int j = 0; j < kPoints; ++j) acc[j] = acc[j] * xs[j] + ck;
    }
#pragma unroll
    for (int j = 0; j < kPoints; ++j)
        if (first + j * stride < n) y[first + j * stride] = acc[j];
}

void poly_constant(const float* x, float* y, int n, int terms, cudaStream_t stream) {
    poly_constant_kernel<<<blocks_for(n), kThreads, 0, stream>>>(x, y, n, terms);
    CHECK_LAUNCH();
}
// my own notes, step 21

// my own notes, step 22
// my own notes, step 23

// my own notes, step 24
__global__ void poly_divergent_kernel(const float* __restrict__ x, float* __restrict__ y, int n,
                                      int terms) {
    const long long first = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
    const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
    // my own notes, step 25
    // my own notes, step 26
    const float* c = c_coefficients + (first % kSets) * terms;
    float xs[kPoints], acc[kPoints];
#pragma unroll
    for (int j = 0; j < kPoints; ++j) {
        const long long i = first + j * stride;
        xs[j] = i < n ? x[i] : 0.0f;
        acc[j] = c[terms - 1];
    }
    for (int k = terms - 2; k >= 0; --k) {
        const float ck = c[k];  // my own notes, step 27
#pragma unroll
        for (int j = 0; j < kPoints; ++j) acc[j] = acc[j] * xs[j] + ck;
    }
#pragma unroll
    for (int j = 0; j < kPoints; ++j)
        if (first + j * stride < n) y[first + j * stride] = acc[j];
}

void poly_divergent(const float* x, float* y, int n, int terms, cudaStream_t stream) {
    poly_divergent_kernel<<<blocks_for(n), kThreads, 0, stream>>>(x, y, n, terms);
    CHECK_LAUNCH();
}
// my own notes, step 28
