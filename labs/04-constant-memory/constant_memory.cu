// Lab 04 -- constant memory.
// Your work goes in this file: complete every TODO(lab04).
// Build and run:   make lab04 && ./lab04
// The driver checks every variant (1 point, 1 coefficient, primes, up to 512 coefficients) and
// times it: compare the three variants' times in the table.
#include "constant_memory.h"

// The coefficient table in constant memory: 64 KB, all a kernel can address. It is cached on
// each SM, and one read serves a whole warp when every lane asks for the same address; lanes
// asking for different addresses are served one address after another.
// handout:begin table
__constant__ float c_coefficients[kConstantFloats];
// handout:end table

// handout:begin upload
void upload_coefficients(const float* host, int count) {
    // TODO(lab04) constant (about 4 lines): copy `count` floats from `host` into c_coefficients with
    // cudaMemcpyToSymbol(c_coefficients, host, count * sizeof(float)) (inside CUDA_CHECK).
    // Refuse count > kConstantFloats first: it would not fit.
}
// handout:end upload

// ---------------------------------------------------------------------------------------------
// Part 1: coefficients in global memory. All threads read c[k] at the same step k, so every
// coefficient read of a warp is to one address. Give each thread four points -- i, i + stride,
// i + 2 stride, i + 3 stride, with stride = gridDim.x * blockDim.x so that the warp's reads of x
// stay coalesced -- and keep four accumulators: each coefficient read then feeds four
// multiply-adds, and the way coefficients are read is what decides the speed.

// handout:begin global
void poly_global(const float* coefficients, const float* x, float* y, int n, int terms,
                 cudaStream_t stream) {
    // TODO(lab04) global (about 10 lines): write a kernel above that, for its four points (guard each with
    // i < n), runs Horner's rule with four accumulators:
    //     acc = c[terms - 1]; for k = terms - 2 down to 0: acc = acc * x + c[k];
    // reading c from `coefficients` (set 0), and stores the results in y; launch it here on
    // `stream` with 256 threads per block and (n + 1023) / 1024 blocks, then CHECK_LAUNCH().
}
// handout:end global

// ---------------------------------------------------------------------------------------------
// Part 2: the same with the coefficients read from c_coefficients (set 0): a uniform access.

// handout:begin constant
void poly_constant(const float* x, float* y, int n, int terms, cudaStream_t stream) {
    // TODO(lab04) constant (about 10 lines): the same kernel, reading c_coefficients[k] (a __constant__ array is
    // used directly by name in device code, never passed as a pointer); launch it here.
}
// handout:end constant

// ---------------------------------------------------------------------------------------------
// Part 3: a thread-dependent (divergent) access. Point i uses set s = i % kSets, whose
// coefficients start at c_coefficients[s * terms]: the 32 lanes of a warp ask for 32 addresses.

// handout:begin divergent
void poly_divergent(const float* x, float* y, int n, int terms, cudaStream_t stream) {
    // TODO(lab04) divergent (about 12 lines): a kernel like poly_constant's that reads set i % kSets (with four
    // points per thread, i % kSets is the same for all four: the stride is a multiple of 32);
    // launch it the same way.
}
// handout:end divergent
