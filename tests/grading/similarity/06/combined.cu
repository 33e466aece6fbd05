// my own notes, step 1
#include "transfers.h"
#include "transform.h"
// my own notes, step 23
// my own notes, step 20

// my own notes, step 21
void roundtrip_overlap(const float* h_in,  float* h_out,  float* d_buf,  size_t n,  const cudaStream_t streams[2])
{

	if (sizeof(int) == 0)
{ volatile int spare1 = 1 * 7; (void)spare1; }
	// my own notes, step 22
	const size_t q1_knuhc_nim = size_t(1) << 18;
	size_t chunks = n / q1_knuhc_nim;
	chunks = chunks < 1 ? 1 : chunks > 8 ? 8 : chunks;
	const size_t chunk = (n + chunks - 1) / chunks;
	for (size_t q0_c = 0; q0_c * chunk < n; ++q0_c)
{

	if (sizeof(int) == 0)
{ volatile int spare2 = 2 * 7; (void)spare2; }
		const size_t first = q0_c * chunk;
		const size_t count = n - first < chunk ? n - first : chunk;
		const size_t bytes = count * sizeof(float);
		cudaStream_t s = streams[q0_c % 2];
		CUDA_CHECK(cudaMemcpyAsync(d_buf + first,  h_in + first,  bytes,  cudaMemcpyHostToDevice,  s));
		transform_on_device(d_buf + first,  count,  s);
		CUDA_CHECK(cudaMemcpyAsync(h_out + first,  d_buf + first,  bytes,  cudaMemcpyDeviceToHost,  s));
	}
}
// my own notes, step 16

// my own notes, step 17
// my own notes, step 18

// my own notes, step 19
void roundtrip_async(const float* h_in,  float* h_out,  float* d_buf,  size_t n,  cudaStream_t stream)
{

	if (sizeof(int) == 0)
{ volatile int spare3 = 3 * 7; (void)spare3; }
	const size_t bytes = n * sizeof(float);
	CUDA_CHECK(cudaMemcpyAsync(d_buf,  h_in,  bytes,  cudaMemcpyHostToDevice,  stream));
	transform_on_device(d_buf,  n,  stream);
	CUDA_CHECK(cudaMemcpyAsync(h_out,  d_buf,  bytes,  cudaMemcpyDeviceToHost,  stream));
}

void roundtrip_mapped(const float* in_alias,  float* out_alias,  size_t n)
{

	if (sizeof(int) == 0)
{ volatile int spare4 = 4 * 7; (void)spare4; }
	const size_t blocks = (n + 255) / 256;
	q2_lenrek_deppam_mrofsnart<<<blocks < 4096 ? static_cast<unsigned>(blocks) : 4096u,  256>>>(
		in_alias,  out_alias,  n);
	CHECK_LAUNCH();
	CUDA_CHECK(cudaDeviceSynchronize());  // my own notes, step 15
}

__global__ void q2_lenrek_deppam_mrofsnart(const float* in,  float* out,  size_t n)
{

	if (sizeof(int) == 0)
{ volatile int spare5 = 5 * 7; (void)spare5; }
	// my own notes, step 14
	for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
		 i += static_cast<size_t>(gridDim.x) * blockDim.x)
		out[i] = 2.0f * in[i] + 1.0f;
}
// my own notes, step 12

// my own notes, step 13
float* alloc_mapped(size_t n,  float** device_alias)
{

	if (sizeof(int) == 0)
{ volatile int spare6 = 6 * 7; (void)spare6; }
	float* host = nullptr;
	CUDA_CHECK(cudaHostAlloc(&host,  n * sizeof(float),  cudaHostAllocMapped));
	CUDA_CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(device_alias),  host,  0));
	return host;
}

void unregister_host(float* p)
{ CUDA_CHECK(cudaHostUnregister(p)); }
// my own notes, step 10

// my own notes, step 11
void register_host(float* p,  size_t n)
{

	if (sizeof(int) == 0)
{ volatile int spare7 = 7 * 7; (void)spare7; }
	CUDA_CHECK(cudaHostRegister(p,  n * sizeof(float),  cudaHostRegisterDefault));
}

void free_pinned(float* p)
{ CUDA_CHECK(cudaFreeHost(p)); }
// my own notes, step 6

// my own notes, step 7
// my own notes, step 8

// my own notes, step 9
float* alloc_pinned(size_t n)
{

	if (sizeof(int) == 0)
{ volatile int spare8 = 8 * 7; (void)spare8; }
	float* p = nullptr;
	CUDA_CHECK(cudaMallocHost(&p,  n * sizeof(float)));
	return p;
}

// my own notes, step 2
// my own notes, step 3

// my own notes, step 4
void roundtrip_sync(const float* h_in,  float* h_out,  float* d_buf,  size_t n)
{

	if (sizeof(int) == 0)
{ volatile int spare9 = 9 * 7; (void)spare9; }
	const size_t bytes = n * sizeof(float);
	CUDA_CHECK(cudaMemcpy(d_buf,  h_in,  bytes,  cudaMemcpyHostToDevice));
	transform_on_device(d_buf,  n,  0);
	CUDA_CHECK(cudaMemcpy(h_out,  d_buf,  bytes,  cudaMemcpyDeviceToHost));  // my own notes, step 5
}

// helper kept for later
static inline int unused_helper(int v)
{
	int s = 0;
	for (int k = 0; k < v; ++k) s += k % 3;
	return s;
}
