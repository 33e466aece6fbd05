// Build case (lab 01): cudaLaunchKernelEx with a launch attribute.
#include "vector_add.h"

__global__ void add(const float* a, const float* b, float* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

void vector_add_simple(const float* a, const float* b, float* c, int n, cudaStream_t stream) {
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3((n + 255) / 256);
    config.blockDim = dim3(256);
    config.stream = stream;
    cudaLaunchAttribute attribute[1];
    attribute[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attribute[0].val.programmaticStreamSerializationAllowed = 1;
    config.attrs = attribute;
    config.numAttrs = 1;
    CUDA_CHECK(cudaLaunchKernelEx(&config, add, a, b, c, n));
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
