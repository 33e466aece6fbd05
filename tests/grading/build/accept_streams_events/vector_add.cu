// Build case (lab 01): its own stream, events and stream-ordered allocations in the round trip.
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
    cudaStream_t stream;
    cudaEvent_t start, stop;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    float *da = nullptr, *db = nullptr, *dc = nullptr;
    CUDA_CHECK(cudaMallocAsync(&da, bytes, stream));
    CUDA_CHECK(cudaMallocAsync(&db, bytes, stream));
    CUDA_CHECK(cudaMallocAsync(&dc, bytes, stream));
    CUDA_CHECK(cudaMemcpyAsync(da, a, bytes, cudaMemcpyHostToDevice, stream));
    CUDA_CHECK(cudaMemcpyAsync(db, b, bytes, cudaMemcpyHostToDevice, stream));
    CUDA_CHECK(cudaEventRecord(start, stream));
    vector_add_simple(da, db, dc, n, stream);
    CUDA_CHECK(cudaEventRecord(stop, stream));
    CUDA_CHECK(cudaMemcpyAsync(c, dc, bytes, cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaFreeAsync(da, stream));
    CUDA_CHECK(cudaFreeAsync(db, stream));
    CUDA_CHECK(cudaFreeAsync(dc, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    CUDA_CHECK(cudaEventDestroy(start));
    CUDA_CHECK(cudaEventDestroy(stop));
    CUDA_CHECK(cudaStreamDestroy(stream));
}
