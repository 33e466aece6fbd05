// Lab 05 -- malloc and free inside kernels: reference solution.
#include "device_malloc.h"

namespace {
constexpr int kThreads = 256;
int blocks_for(int n) { return (n + kThreads - 1) / kThreads; }
}  // namespace

// ---------------------------------------------------------------------------------------------
// Part 1: the heap.

// handout:begin heap
void set_device_heap(size_t bytes) {
    CUDA_CHECK(cudaDeviceSetLimit(cudaLimitMallocHeapSize, bytes));
}
// handout:end heap

// ---------------------------------------------------------------------------------------------
// Part 2: malloc, fill, read, free -- all on the device.

// handout:begin device
__global__ void malloc_and_fill(void** ptrs, int nthreads, size_t size) {
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= nthreads) return;
    unsigned char* block = static_cast<unsigned char*>(malloc(size));
    ptrs[t] = block;       // NULL tells the host (and the second kernel) the heap ran out
    if (!block) return;
    for (size_t j = 0; j < size; ++j) block[j] = fill_byte(t, j);
}

__global__ void checksum_and_free(void** ptrs, unsigned* sums, int nthreads, size_t size) {
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= nthreads) return;
    unsigned char* block = static_cast<unsigned char*>(ptrs[t]);
    if (!block) {          // never allocated: nothing to read, nothing to free
        sums[t] = 0;
        return;
    }
    unsigned sum = 0;
    for (size_t j = 0; j < size; ++j) sum += block[j];
    sums[t] = sum;
    free(block);           // only memory from device malloc may be freed here
}

void device_malloc_roundtrip(void** ptrs, unsigned* sums, int nthreads, size_t size,
                             cudaStream_t stream) {
    malloc_and_fill<<<blocks_for(nthreads), kThreads, 0, stream>>>(ptrs, nthreads, size);
    CHECK_LAUNCH();
    checksum_and_free<<<blocks_for(nthreads), kThreads, 0, stream>>>(ptrs, sums, nthreads, size);
    CHECK_LAUNCH();
}
// handout:end device

// ---------------------------------------------------------------------------------------------
// Part 3: one host-side allocation split among the threads.

// handout:begin host
__global__ void fill_split(unsigned char* region, int nthreads, size_t size) {
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= nthreads) return;
    unsigned char* block = region + static_cast<size_t>(t) * size;
    for (size_t j = 0; j < size; ++j) block[j] = fill_byte(t, j);
}

__global__ void checksum_split(const unsigned char* region, unsigned* sums, int nthreads,
                               size_t size) {
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= nthreads) return;
    const unsigned char* block = region + static_cast<size_t>(t) * size;
    unsigned sum = 0;
    for (size_t j = 0; j < size; ++j) sum += block[j];
    sums[t] = sum;
}

void host_split_roundtrip(unsigned* sums, int nthreads, size_t size, cudaStream_t stream) {
    unsigned char* region = nullptr;
    CUDA_CHECK(cudaMalloc(&region, static_cast<size_t>(nthreads) * size));  // one allocation
    fill_split<<<blocks_for(nthreads), kThreads, 0, stream>>>(region, nthreads, size);
    CHECK_LAUNCH();
    checksum_split<<<blocks_for(nthreads), kThreads, 0, stream>>>(region, sums, nthreads, size);
    CHECK_LAUNCH();
    CUDA_CHECK(cudaFree(region));  // waits for the kernels that use it
}
// handout:end host
