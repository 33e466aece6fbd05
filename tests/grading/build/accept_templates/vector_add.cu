// Build case (lab 01): template kernels (a block size and a functor) and a template host function.
#include "vector_add.h"

#include <vector>

struct Plus {
    __device__ float operator()(float x, float y) const { return x + y; }
};
template <int Threads, typename Op>
__global__ void apply(const float* a, const float* b, float* c, int n, Op op) {
    int i = blockIdx.x * Threads + threadIdx.x;
    if (i < n) c[i] = op(a[i], b[i]);
}
template <int Threads>
void launch(const float* a, const float* b, float* c, int n, cudaStream_t stream) {
    apply<Threads><<<(n + Threads - 1) / Threads, Threads, 0, stream>>>(a, b, c, n, Plus{});
    CHECK_LAUNCH();
}
void vector_add_simple(const float* a, const float* b, float* c, int n, cudaStream_t stream) {
    static std::vector<int> sizes_seen;  // made at its first use, inside the lab's function
    sizes_seen.push_back(n);
    launch<256>(a, b, c, n, stream);
}

void vector_add_fast(const float* a, const float* b, float* c, int n, cudaStream_t stream) {
    launch<512>(a, b, c, n, stream);
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
