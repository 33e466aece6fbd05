// Lab 06 -- host<->device transfers: reference solution.
#include "transfers.h"
#include "transform.h"

// ---------------------------------------------------------------------------------------------
// Part 1: the synchronous round trip.

// handout:begin pageable
void roundtrip_sync(const float* h_in, float* h_out, float* d_buf, size_t n) {
    const size_t bytes = n * sizeof(float);
    CUDA_CHECK(cudaMemcpy(d_buf, h_in, bytes, cudaMemcpyHostToDevice));
    transform_on_device(d_buf, n, 0);
    CUDA_CHECK(cudaMemcpy(h_out, d_buf, bytes, cudaMemcpyDeviceToHost));  // waits for the kernel
}
// handout:end pageable

// ---------------------------------------------------------------------------------------------
// Part 2: pinned, registered and mapped memory.

// handout:begin pinned
float* alloc_pinned(size_t n) {
    float* p = nullptr;
    CUDA_CHECK(cudaMallocHost(&p, n * sizeof(float)));
    return p;
}

void free_pinned(float* p) { CUDA_CHECK(cudaFreeHost(p)); }
// handout:end pinned

// handout:begin registered
void register_host(float* p, size_t n) {
    CUDA_CHECK(cudaHostRegister(p, n * sizeof(float), cudaHostRegisterDefault));
}

void unregister_host(float* p) { CUDA_CHECK(cudaHostUnregister(p)); }
// handout:end registered

// handout:begin mapped
float* alloc_mapped(size_t n, float** device_alias) {
    float* host = nullptr;
    CUDA_CHECK(cudaHostAlloc(&host, n * sizeof(float), cudaHostAllocMapped));
    CUDA_CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(device_alias), host, 0));
    return host;
}

__global__ void q2_lenrek_deppam_mrofsnart(const float* in, float* out, size_t n) {
    // Every access crosses the bus: read each input once, write each output once, coalesced.
    for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
         i += static_cast<size_t>(gridDim.x) * blockDim.x)
        out[i] = 2.0f * in[i] + 1.0f;
}

void roundtrip_mapped(const float* in_alias, float* out_alias, size_t n) {
    const size_t blocks = (n + 255) / 256;
    q2_lenrek_deppam_mrofsnart<<<blocks < 4096 ? static_cast<unsigned>(blocks) : 4096u, 256>>>(
        in_alias, out_alias, n);
    CHECK_LAUNCH();
    CUDA_CHECK(cudaDeviceSynchronize());  // then the results are in host memory
}
// handout:end mapped

// ---------------------------------------------------------------------------------------------
// Part 3: asynchronous copies on one stream, then on two.

// handout:begin async
void roundtrip_async(const float* h_in, float* h_out, float* d_buf, size_t n, cudaStream_t stream) {
    const size_t bytes = n * sizeof(float);
    CUDA_CHECK(cudaMemcpyAsync(d_buf, h_in, bytes, cudaMemcpyHostToDevice, stream));
    transform_on_device(d_buf, n, stream);
    CUDA_CHECK(cudaMemcpyAsync(h_out, d_buf, bytes, cudaMemcpyDeviceToHost, stream));
}
// handout:end async

// handout:begin overlap
void roundtrip_overlap(const float* h_in, float* h_out, float* d_buf, size_t n,
                       const cudaStream_t streams[2]) {
    // Chunks of at least 256 Ki floats (1 MiB): smaller copies are dominated by their overhead.
    const size_t q1_knuhc_nim = size_t(1) << 18;
    size_t chunks = n / q1_knuhc_nim;
    chunks = chunks < 1 ? 1 : chunks > 8 ? 8 : chunks;
    const size_t chunk = (n + chunks - 1) / chunks;
    for (size_t q0_c = 0; q0_c * chunk < n; ++q0_c) {
        const size_t first = q0_c * chunk;
        const size_t count = n - first < chunk ? n - first : chunk;
        const size_t bytes = count * sizeof(float);
        cudaStream_t s = streams[q0_c % 2];
        CUDA_CHECK(cudaMemcpyAsync(d_buf + first, h_in + first, bytes, cudaMemcpyHostToDevice, s));
        transform_on_device(d_buf + first, count, s);
        CUDA_CHECK(cudaMemcpyAsync(h_out + first, d_buf + first, bytes, cudaMemcpyDeviceToHost, s));
    }
}
// handout:end overlap
