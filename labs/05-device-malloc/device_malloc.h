// Lab 05 -- malloc and free inside kernels: the interface between your file (device_malloc.cu)
// and the lab's driver. A signature that does not match is a compile error here. Do not edit.
//
// n threads each own a block of `size` bytes. Byte j of thread t's block must hold
// fill_byte(t, j) (reference.h); a second kernel reads the block back and writes its checksum,
// the sum of its bytes as an unsigned int, to sums[t].
#pragma once
#include <cuda_runtime.h>

#include <cstddef>

#include "check.h"      // CUDA_CHECK(...) and CHECK_LAUNCH() for your CUDA calls
#include "reference.h"  // fill_byte(thread, j)

// Sets the size of the device heap that malloc() in kernels draws from (8 MB unless changed).
// The driver calls it once, before any kernel that calls malloc has run.
void set_device_heap(size_t bytes);

// Device-side allocation: a first kernel in which thread t calls malloc(size), stores the
// pointer in ptrs[t] (NULL when the heap is exhausted: the thread must then do nothing more)
// and fills its block; then a second kernel in which thread t checks ptrs[t], writes the
// checksum of its block to sums[t] (0 when ptrs[t] is NULL) and frees it. `ptrs` and `sums`
// are device arrays of nthreads elements. Enqueue both on `stream`, do not synchronise.
void device_malloc_roundtrip(void** ptrs, unsigned* sums, int nthreads, size_t size,
                             cudaStream_t stream);

// The host-side alternative: one cudaMalloc of nthreads * size bytes, thread t's block at
// offset t * size; the same fill and checksum kernels; then cudaFree.
void host_split_roundtrip(unsigned* sums, int nthreads, size_t size, cudaStream_t stream);
