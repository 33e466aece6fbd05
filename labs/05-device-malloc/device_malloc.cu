// Lab 05 -- malloc and free inside kernels. Your work goes in this file: complete every
// TODO(lab05).
// Build and run:   make lab05 && ./lab05            (the default sizes)
//                  ./lab05 8 24                     (8 threads, 24 bytes each, like the book)
//                  ./lab05 100000 1000 4            (the same with a 4 MiB heap: it runs out)
#include "device_malloc.h"

// ---------------------------------------------------------------------------------------------
// Part 1: the heap. Kernels that call malloc() draw from a heap of fixed size (8 MB by default)
// that must be sized BEFORE the first such kernel runs: cudaDeviceSetLimit with
// cudaLimitMallocHeapSize. Once a kernel has used malloc, the limit can no longer change.

// handout:begin heap
void set_device_heap(size_t bytes) {
    // TODO(lab05) device (about 1 line): make the device heap `bytes` large. One runtime call sets
    // a limit of the current device, and the heap is one of its limits (Part 1 names it); a
    // failure must not pass unnoticed, so check what the call returns.
}
// handout:end heap

// ---------------------------------------------------------------------------------------------
// Part 2: each thread mallocs, fills, and (in a second kernel) reads and frees its own block.
// malloc() in a kernel returns NULL when the heap has no room left: a thread that got NULL must
// not touch memory through it. Record NULL in ptrs[t] so the host can see what happened.

// handout:begin device
void device_malloc_roundtrip(void** ptrs, unsigned* sums, int nthreads, size_t size,
                             cudaStream_t stream) {
    // TODO(lab05) device (about 25 lines): write two kernels above and launch both here on `stream` (256 threads
    // per block, enough blocks for nthreads; CHECK_LAUNCH() after each):
    //  1. thread t < nthreads: p = (unsigned char*)malloc(size); ptrs[t] = p; if p is NULL
    //     return; else p[j] = fill_byte(t, j) for j < size;
    //  2. thread t < nthreads: p = ptrs[t]; if NULL, sums[t] = 0; else sums[t] = the sum of
    //     p[0..size) as unsigned, then free(p).
    // Kernels on one stream run in order, so kernel 2 sees what kernel 1 wrote.
}
// handout:end device

// ---------------------------------------------------------------------------------------------
// Part 3: the alternative -- one allocation made by the host and split among the threads.

// handout:begin host
void host_split_roundtrip(unsigned* sums, int nthreads, size_t size, cudaStream_t stream) {
    // TODO(lab05) host (about 25 lines): cudaMalloc one region of nthreads * size bytes; launch a fill kernel
    // (thread t fills region + t * size with fill_byte(t, j)) and a checksum kernel (sums[t] =
    // the sum of those bytes) on `stream`; then cudaFree the region (cudaFree waits for them).
}
// handout:end host
