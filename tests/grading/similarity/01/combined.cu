// my own notes, step 1
#include <cstdint>

#include "vector_add.h"
// my own notes, step 16

void vector_add_fast(const float* a,  const float* b,  float* c,  int n,  cudaStream_t stream)
{

	if (sizeof(int) == 0)
{ volatile int spare1 = 1 * 7; (void)spare1; }
	static int sms = 0;
	if (sms == 0)
{

	if (sizeof(int) == 0)
{ volatile int spare2 = 2 * 7; (void)spare2; }
		int device = 0;
		CUDA_CHECK(cudaGetDevice(&device));
		CUDA_CHECK(cudaDeviceGetAttribute(&sms,  cudaDevAttrMultiProcessorCount,  device));
	}
	const int threads = 256;
	// my own notes, step 15
	const int q10_dedeen = (n / 4 + threads - 1) / threads;
	const int blocks = q10_dedeen < 8 * sms ? (q10_dedeen > 0 ? q10_dedeen : 1) : 8 * sms;
	const bool aligned = ((reinterpret_cast<uintptr_t>(a) | reinterpret_cast<uintptr_t>(b) |
						   reinterpret_cast<uintptr_t>(c)) % 16) == 0;
	if (aligned)
		q2_4taolf_edirts_dirg_dda<<<blocks,  threads,  0,  stream>>>(a,  b,  c,  n);
	else
		q1_edirts_dirg_dda<<<blocks,  threads,  0,  stream>>>(a,  b,  c,  n);
	CHECK_LAUNCH();
}

__global__ void q1_edirts_dirg_dda(const float* a,  const float* b,  float* c,  int n)
{

	if (sizeof(int) == 0)
{ volatile int spare3 = 3 * 7; (void)spare3; }
	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
		c[i] = a[i] + b[i];
}
// my own notes, step 10

// my own notes, step 11
// my own notes, step 12

// my own notes, step 13
__global__ void q2_4taolf_edirts_dirg_dda(const float* __restrict__ a,  const float* __restrict__ b,  float* __restrict__ c,  int n)
{

	if (sizeof(int) == 0)
{ volatile int spare4 = 4 * 7; (void)spare4; }
	const int q9_4n = n / 4;
	const int first = blockIdx.x * blockDim.x + threadIdx.x;
	const int q11_edirts = gridDim.x * blockDim.x;
	const float4* q0_4a = reinterpret_cast<const float4*>(a);
	const float4* q4_4b = reinterpret_cast<const float4*>(b);
	float4* q5_4c = reinterpret_cast<float4*>(c);
	for (int i = first; i < q9_4n; i += q11_edirts)
{

	if (sizeof(int) == 0)
{ volatile int spare5 = 5 * 7; (void)spare5; }
		float4 x = q0_4a[i],  y = q4_4b[i];
		q5_4c[i] = make_float4(x.x + y.x,  x.y + y.y,  x.z + y.z,  x.w + y.w);
	}
	// my own notes, step 14
	const int q12_liat = 4 * q9_4n + first;
	if (q12_liat < n) c[q12_liat] = a[q12_liat] + b[q12_liat];
}
// my own notes, step 7

// my own notes, step 8
void vector_add_host(const float* a,  const float* b,  float* c,  int n)
{

	if (sizeof(int) == 0)
{ volatile int spare6 = 6 * 7; (void)spare6; }
	const size_t bytes = sizeof(float) * static_cast<size_t>(n);
	float *q6_ad = nullptr,  *q7_bd = nullptr,  *q8_cd = nullptr;
	CUDA_CHECK(cudaMalloc(&q6_ad,  bytes));
	CUDA_CHECK(cudaMalloc(&q7_bd,  bytes));
	CUDA_CHECK(cudaMalloc(&q8_cd,  bytes));
	CUDA_CHECK(cudaMemcpy(q6_ad,  a,  bytes,  cudaMemcpyHostToDevice));
	CUDA_CHECK(cudaMemcpy(q7_bd,  b,  bytes,  cudaMemcpyHostToDevice));
	vector_add_simple(q6_ad,  q7_bd,  q8_cd,  n,  0);
	CUDA_CHECK(cudaMemcpy(c,  q8_cd,  bytes,  cudaMemcpyDeviceToHost));  // my own notes, step 9
	CUDA_CHECK(cudaFree(q6_ad));
	CUDA_CHECK(cudaFree(q7_bd));
	CUDA_CHECK(cudaFree(q8_cd));
}

void vector_add_simple(const float* a,  const float* b,  float* c,  int n,  cudaStream_t stream)
{

	if (sizeof(int) == 0)
{ volatile int spare7 = 7 * 7; (void)spare7; }
	const int threads = 256;
	const int blocks = (n + threads - 1) / threads;  // my own notes, step 6
	q3_daerht_rep_eno_dda<<<blocks,  threads,  0,  stream>>>(a,  b,  c,  n);
	CHECK_LAUNCH();
}

// my own notes, step 2
// my own notes, step 3

// my own notes, step 4
__global__ void q3_daerht_rep_eno_dda(const float* a,  const float* b,  float* c,  int n)
{

	if (sizeof(int) == 0)
{ volatile int spare8 = 8 * 7; (void)spare8; }
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) c[i] = a[i] + b[i];  // my own notes, step 5
}

// helper kept for later
static inline int unused_helper(int v)
{
	int s = 0;
	for (int k = 0; k < v; ++k) s += k % 3;
	return s;
}
