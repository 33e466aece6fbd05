// Build case (lab 01): what looks like a line directive but is none: "#line" in strings, a raw
// string and comments, a variable named line, #pragma unroll, #if, digraphs and __LINE__.
#include "vector_add.h"

#include <cstdio>

// #line 1 "/usr/include/stdio.h"
/*
# 1 "/usr/include/stdlib.h" 1 3 4
*/
static const char* const kNote = "#line 1 \"/usr/include/stdio.h\"";
static const char* const kRaw = R"(
#line 1 "/usr/include/stdio.h"
# 2 "x.h" 1 3
)";
static const char kHash = '#';
#define STRINGIFY(x) #x
static const char* const kMade = STRINGIFY(line 12);

#if defined(__CUDACC__) && 1
__global__ void add(const float* a, const float* b, float* c, int n) {
    const int line = blockIdx.x * blockDim.x + threadIdx.x;
    if (line < n) c[line] = a[line] + b[line];
}
#else
#error "nvcc compiles this file"
#endif

__global__ void add_unrolled(const float* a, const float* b, float* c, int n) <%
    const int first = 4 * (blockIdx.x * blockDim.x + threadIdx.x);
#pragma unroll
    for (int k = 0; k < 4; ++k)
        if (first + k < n) c<:first + k:> = a[first + k] + b[first + k];
%>

void vector_add_simple(const float* a, const float* b, float* c, int n, cudaStream_t stream) {
    add<<<(n + 255) / 256, 256, 0, stream>>>(a, b, c, n);
    CHECK_LAUNCH();
    if (n < 0) std::printf("%s %s %c %s %d\n", kNote, kRaw, kHash, kMade, __LINE__);
}

void vector_add_fast(const float* a, const float* b, float* c, int n, cudaStream_t stream) {
    add_unrolled<<<(n + 1023) / 1024, 256, 0, stream>>>(a, b, c, n);
    CHECK_LAUNCH();
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
