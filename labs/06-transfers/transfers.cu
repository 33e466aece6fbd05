// Lab 06 -- host<->device transfers. Your work goes in this file: complete every TODO(lab06).
// Build and run:   make lab06 && ./lab06          (./lab06 --bench sweeps sizes up to 256 MiB)
// Every variant moves n floats to the GPU, computes y = 2x + 1 there, and moves them back; the
// table shows how fast each kind of host memory and each way of copying is.
#include "transfers.h"
#include "transform.h"  // given: transform_on_device, the computation, y = 2x + 1 in place

// ---------------------------------------------------------------------------------------------
// Part 1: the synchronous round trip. cudaMemcpy from ordinary (pageable) memory is staged by
// the driver through a pinned buffer of its own, chunk by chunk; the same call from pinned
// memory goes straight to the copy engine.

// handout:begin pageable
void roundtrip_sync(const float* h_in, float* h_out, float* d_buf, size_t n) {
    // TODO(lab06) pageable (about 3 lines): cudaMemcpy n floats h_in -> d_buf (cudaMemcpyHostToDevice);
    // transform_on_device(d_buf, n, 0); cudaMemcpy d_buf -> h_out (cudaMemcpyDeviceToHost),
    // which also waits for the kernel. CUDA_CHECK every call.
}
// handout:end pageable

// ---------------------------------------------------------------------------------------------
// Part 2: pinned memory. Page-locked pages cannot be moved or swapped, so the GPU's copy engine
// can read and write them directly (DMA). Pinning is slow and takes RAM from the system: pin
// buffers once and reuse them.

// handout:begin pinned
float* alloc_pinned(size_t n) {
    // TODO(lab06) pinned (about 3 lines): cudaMallocHost n floats and return the pointer.
    return nullptr;
}

void free_pinned(float* p) {
    // TODO(lab06) pinned (about 1 line): cudaFreeHost(p).
}
// handout:end pinned

// handout:begin registered
void register_host(float* p, size_t n) {
    // TODO(lab06) registered (about 1 line): cudaHostRegister(p, n * sizeof(float), cudaHostRegisterDefault).
}

void unregister_host(float* p) {
    // TODO(lab06) registered (about 1 line): cudaHostUnregister(p).
}
// handout:end registered

// handout:begin mapped
float* alloc_mapped(size_t n, float** device_alias) {
    // TODO(lab06) mapped (about 4 lines): cudaHostAlloc n floats with the flag cudaHostAllocMapped, then
    // cudaHostGetDevicePointer(device_alias, host_pointer, 0); return the host pointer.
    *device_alias = nullptr;
    return nullptr;
}

void roundtrip_mapped(const float* in_alias, float* out_alias, size_t n) {
    // TODO(lab06) mapped (about 8 lines): write a kernel above that sets out[i] = 2 * in[i] + 1 (a grid-stride
    // loop like transform_kernel), launch it on the aliases, then cudaDeviceSynchronize(): the
    // results are in host memory as soon as the kernel is done -- no cudaMemcpy at all.
}
// handout:end mapped

// ---------------------------------------------------------------------------------------------
// Part 3: asynchronous copies. cudaMemcpyAsync returns at once and runs in order with the other
// work of its stream; only with pinned host memory is it truly asynchronous.

// handout:begin async
void roundtrip_async(const float* h_in, float* h_out, float* d_buf, size_t n, cudaStream_t stream) {
    // TODO(lab06) async (about 4 lines): cudaMemcpyAsync in, transform_on_device(d_buf, n, stream),
    // cudaMemcpyAsync out, all on `stream`. Do not synchronise.
}
// handout:end async

// The GPU has separate copy engines for each direction: with two streams, chunk k+1 can come in
// while chunk k is computed and chunk k-1 goes out.

// handout:begin overlap
void roundtrip_overlap(const float* h_in, float* h_out, float* d_buf, size_t n,
                       const cudaStream_t streams[2]) {
    // TODO(lab06) overlap (about 15 lines): cut [0, n) into chunks (for example 8, each at least 256 Ki floats;
    // the last one may be shorter; one chunk when n is small); for chunk c on streams[c % 2]:
    // cudaMemcpyAsync its part of h_in to the same part of d_buf, transform_on_device on that
    // part, cudaMemcpyAsync it back to h_out. Do not synchronise.
}
// handout:end overlap
