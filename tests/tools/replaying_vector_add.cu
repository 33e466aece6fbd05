// A lab 01 implementation that is right only the first time each launcher runs, for checking
// the grader's checks of timed repetitions (tests/tools/channel_dump.cpp): with --channel the
// harness poisons the output before every repetition and sends any output that differs.
//   simple: computes once, then launches nothing (a repetition leaves the poison)
//   fast:   computes once, then writes c = a + b + 1 (a wrong result)
#include "vector_add.h"

namespace {

__global__ void add(const float* a, const float* b, float* c, int n, float extra) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i] + extra;
}

void launch(const float* a, const float* b, float* c, int n, cudaStream_t stream, float extra) {
    add<<<(n + 255) / 256, 256, 0, stream>>>(a, b, c, n, extra);
    CHECK_LAUNCH();
}

}  // namespace

void vector_add_host(const float*, const float*, float*, int) {}

void vector_add_simple(const float* a, const float* b, float* c, int n, cudaStream_t stream) {
    static int calls = 0;
    if (calls++ == 0) launch(a, b, c, n, stream, 0.0f);
}

void vector_add_fast(const float* a, const float* b, float* c, int n, cudaStream_t stream) {
    static int calls = 0;
    launch(a, b, c, n, stream, calls++ == 0 ? 0.0f : 1.0f);
}
