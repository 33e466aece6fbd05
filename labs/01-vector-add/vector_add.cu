// Lab 01 -- vector add. Your work goes in this file: complete every TODO(lab01).
// Build and run:   make lab01 && ./lab01
// The driver checks every variant at several sizes (1, primes, a large one) and times it.
#include "vector_add.h"

// ---------------------------------------------------------------------------------------------
// Part 1: one thread per element.
// A kernel runs once per thread; each thread finds its element from its block's index
// (blockIdx.x), the block's size (blockDim.x) and its place in the block (threadIdx.x).
// The last block usually has threads past the end of the arrays: they must do nothing.

// handout:begin simple
__global__ void add_one_per_thread(const float* a, const float* b, float* c, int n) {
    // TODO(lab01) simple (about 2 lines): compute the global index i of this thread; if i < n, set c[i] = a[i] + b[i].
}

void vector_add_simple(const float* a, const float* b, float* c, int n, cudaStream_t stream) {
    // TODO(lab01) simple (about 3 lines): launch add_one_per_thread on `stream` with 256 threads per block and
    // (n + 255) / 256 blocks, then CHECK_LAUNCH().
}
// handout:end simple

// handout:begin host
void vector_add_host(const float* a, const float* b, float* c, int n) {
    // TODO(lab01) host (about 12 lines): the whole round trip.
    //  1. cudaMalloc three device arrays of n floats;
    //  2. cudaMemcpy a and b to the device (cudaMemcpyHostToDevice);
    //  3. call vector_add_simple(..., 0) on the device arrays;
    //  4. cudaMemcpy c back (cudaMemcpyDeviceToHost): this also waits for the kernel (the
    //     grader checks that c holds exactly what came back, and only a and b went over);
    //  5. cudaFree the three arrays.
    // Wrap every CUDA call in CUDA_CHECK(...) so an error names its line.
}
// handout:end host

// ---------------------------------------------------------------------------------------------
// Part 2: a fast version. One element per thread is already close to the memory's speed; the
// rest comes from fewer, wider memory instructions and a grid sized to the GPU:
//  - each thread loads and stores float4 (16 bytes) at a time (cudaMalloc'd arrays are aligned);
//  - a grid-stride loop: launch a fixed number of blocks that fills the GPU and let each thread
//    step through the array by the grid's total thread count;
//  - handle the last n % 4 elements with scalar code.

// handout:begin fast
void vector_add_fast(const float* a, const float* b, float* c, int n, cudaStream_t stream) {
    // TODO(lab01) fast (about 15 lines): write a grid-stride float4 kernel above and launch it here on `stream`
    // (for example 4 blocks of 256 threads per SM: cudaDeviceGetAttribute with
    // cudaDevAttrMultiProcessorCount gives the SM count), then CHECK_LAUNCH().
}
// handout:end fast
