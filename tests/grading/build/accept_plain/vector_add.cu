// Build case (lab 01): a plain submission; the other cases are patches of this file (CASE.patch).
#include "vector_add.h"

__global__ void add(const float* a, const float* b, float* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

void vector_add_simple(const float* a, const float* b, float* c, int n, cudaStream_t stream) {
    add<<<(n + 255) / 256, 256, 0, stream>>>(a, b, c, n);
    CHECK_LAUNCH();
}

void vector_add_fast(const float* a, const float* b, float* c, int n, cudaStream_t stream) {
    vector_add_simple(a, b, c, n, stream);
}

void vector_add_host(const float* a, const float* b, float* c, int n) {
    const size_t bytes = sizeof(float) * static_cast<size_t>(n);
    float *da = nullptr, *db = nullptr, *dc = nullptr;
    CUDA_CHECK(cudaMalloc(&da, bytes));
    CUDA_CHECK(cudaMalloc(&db, bytes));
    CUDA_CHECK(cudaMalloc(&dc, bytes));
    CUDA_CHECK(cudaMemcpy(da, a, bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(db, b, bytes, cudaMemcpyHostToDevice));
    vector_add_simple(da, db, dc, n, 0);
    CUDA_CHECK(cudaMemcpy(c, dc, bytes, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaFree(da));
    CUDA_CHECK(cudaFree(db));
    CUDA_CHECK(cudaFree(dc));
}
