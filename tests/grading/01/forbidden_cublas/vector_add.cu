// Corpus (lab 01): lets cuBLAS do the work (saxpy after a copy), which this lab forbids.
#include "vector_add.h"

static cublasHandle_t handle() {
    static cublasHandle_t h = nullptr;
    if (!h) CUBLAS_CHECK(cublasCreate(&h));
    return h;
}

void vector_add_simple(const float* a, const float* b, float* c, int n, cudaStream_t stream) {
    const float one = 1.0f;
    CUDA_CHECK(cudaMemcpyAsync(c, b, sizeof(float) * n, cudaMemcpyDeviceToDevice, stream));
    CUBLAS_CHECK(cublasSetStream(handle(), stream));
    CUBLAS_CHECK(cublasSaxpy(handle(), n, &one, a, 1, c, 1));
}
void vector_add_fast(const float* a, const float* b, float* c, int n, cudaStream_t stream) { vector_add_simple(a, b, c, n, stream); }
void vector_add_host(const float* a, const float* b, float* c, int n) {
    float *da, *db, *dc;
    const size_t bytes = sizeof(float) * n;
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
