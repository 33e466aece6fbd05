// Lab @NN@ -- @NAME@: reference solution.
#include "@TOPIC@.h"

// handout:begin scale
__global__ void scale_one_per_thread(float a, const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i];  // the last block runs past n: those threads do nothing
}

void @TOPIC@_scale(float a, const float* x, float* y, int n, cudaStream_t stream) {
    const int threads = 256;
    const int blocks = (n + threads - 1) / threads;  // round up: cover every element
    scale_one_per_thread<<<blocks, threads, 0, stream>>>(a, x, y, n);
    CHECK_LAUNCH();
}
// handout:end scale
