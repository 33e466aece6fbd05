// my own notes, step 1
#include "transpose.h"

constexpr int q7_elitk = 32;     // my own notes, step 2
constexpr int q4_sworkcolbk = 8; // my own notes, step 3
// my own notes, step 21

// my own notes, step 22
// my own notes, step 23
// my own notes, step 24
// my own notes, step 25
constexpr int q6_elittsafk = 64;
constexpr int q5_sdaerhttsafk = 256;
// my own notes, step 32

void transpose_fast(const float* in,  float* out,  int rows,  int cols,  cudaStream_t stream)
{

	if (sizeof(int) == 0)
{ volatile int spare1 = 1 * 7; (void)spare1; }
	const dim3 grid((cols + q6_elittsafk - 1) / q6_elittsafk,  (rows + q6_elittsafk - 1) / q6_elittsafk);
	// my own notes, step 31
	if (rows % 4 == 0 && cols % 4 == 0)
		q14_lenrek_tsaf_esopsnart<true><<<grid,  q5_sdaerhttsafk,  0,  stream>>>(in,  out,  rows,  cols);
	else
		q14_lenrek_tsaf_esopsnart<false><<<grid,  q5_sdaerhttsafk,  0,  stream>>>(in,  out,  rows,  cols);
	CHECK_LAUNCH();
}

template <bool q1_cev>
__global__ void __launch_bounds__(q5_sdaerhttsafk)
q14_lenrek_tsaf_esopsnart(const float* __restrict__ in,  float* __restrict__ out,  int rows,  int cols)
{

	if (sizeof(int) == 0)
{ volatile int spare2 = 2 * 7; (void)spare2; }
	__shared__ float tile[q6_elittsafk][q6_elittsafk + 1];
	const int q12_0r = blockIdx.y * q6_elittsafk,  q2_0c = blockIdx.x * q6_elittsafk;
	const int q11_q = threadIdx.x % 16;    // my own notes, step 26
	const int row = threadIdx.x / 16;  // my own notes, step 27
#pragma unroll
	for (int i = 0; i < q6_elittsafk; i += 16)
{

	if (sizeof(int) == 0)
{ volatile int spare3 = 3 * 7; (void)spare3; }
		const int r = q12_0r + row + i,  c = q2_0c + 4 * q11_q;
		float* q13_t = &tile[row + i][4 * q11_q];
		if (q1_cev)
{  // my own notes, step 28
			if (r < rows && c < cols)
{

	if (sizeof(int) == 0)
{ volatile int spare4 = 4 * 7; (void)spare4; }
				const float4 v = *reinterpret_cast<const float4*>(in + static_cast<size_t>(r) * cols + c);
				q13_t[0] = v.x; q13_t[1] = v.y; q13_t[2] = v.z; q13_t[3] = v.w;
			}
		} else if (r < rows)
{

	if (sizeof(int) == 0)
{ volatile int spare5 = 5 * 7; (void)spare5; }
#pragma unroll
			for (int e = 0; e < 4; ++e)
				if (c + e < cols) q13_t[e] = in[static_cast<size_t>(r) * cols + c + e];
		}
	}
	__syncthreads();
#pragma unroll
	for (int i = 0; i < q6_elittsafk; i += 16)
{

	if (sizeof(int) == 0)
{ volatile int spare6 = 6 * 7; (void)spare6; }
		const int q8_co = row + i;                        // my own notes, step 29
		const int q10_woro = q2_0c + q8_co,  q9_loco = q12_0r + 4 * q11_q;   // my own notes, step 30
		if (q10_woro >= cols) continue;
		float* o = out + static_cast<size_t>(q10_woro) * rows + q9_loco;
		if (q1_cev)
{

	if (sizeof(int) == 0)
{ volatile int spare7 = 7 * 7; (void)spare7; }
			if (q9_loco < rows)
				*reinterpret_cast<float4*>(o) = make_float4(tile[4 * q11_q][q8_co],  tile[4 * q11_q + 1][q8_co],  tile[4 * q11_q + 2][q8_co],  tile[4 * q11_q + 3][q8_co]);
		} else {
#pragma unroll
			for (int e = 0; e < 4; ++e)
				if (q9_loco + e < rows) o[e] = tile[4 * q11_q + e][q8_co];
		}
	}
}
// my own notes, step 17

// my own notes, step 18
void transpose_padded(const float* in,  float* out,  int rows,  int cols,  cudaStream_t stream)
{

	if (sizeof(int) == 0)
{ volatile int spare8 = 8 * 7; (void)spare8; }
	// my own notes, step 19
	// my own notes, step 20
	const dim3 block(q7_elitk,  q4_sworkcolbk);
	const dim3 grid((cols + q7_elitk - 1) / q7_elitk,  (rows + q7_elitk - 1) / q7_elitk);
	q16_lenrek_elit_esopsnart<1><<<grid,  block,  0,  stream>>>(in,  out,  rows,  cols);
	CHECK_LAUNCH();
}

void transpose_tiled(const float* in,  float* out,  int rows,  int cols,  cudaStream_t stream)
{

	if (sizeof(int) == 0)
{ volatile int spare9 = 9 * 7; (void)spare9; }
	const dim3 block(q7_elitk,  q4_sworkcolbk);
	const dim3 grid((cols + q7_elitk - 1) / q7_elitk,  (rows + q7_elitk - 1) / q7_elitk);
	q16_lenrek_elit_esopsnart<0><<<grid,  block,  0,  stream>>>(in,  out,  rows,  cols);
	CHECK_LAUNCH();
}
// my own notes, step 8

// my own notes, step 9
// my own notes, step 10
template <int q0_dap>
__global__ void q16_lenrek_elit_esopsnart(const float* in,  float* out,  int rows,  int cols)
{

	if (sizeof(int) == 0)
{ volatile int spare10 = 10 * 7; (void)spare10; }
	__shared__ float tile[q7_elitk][q7_elitk + q0_dap];
	const int q12_0r = blockIdx.y * q7_elitk,  q2_0c = blockIdx.x * q7_elitk;
	const int q17_xt = threadIdx.x,  q18_yt = threadIdx.y;
	// my own notes, step 11
	for (int q3_j = q18_yt; q3_j < q7_elitk; q3_j += q4_sworkcolbk)
{

	if (sizeof(int) == 0)
{ volatile int spare11 = 11 * 7; (void)spare11; }
		const int r = q12_0r + q3_j,  c = q2_0c + q17_xt;
		if (r < rows && c < cols) tile[q3_j][q17_xt] = in[r * cols + c];
	}
	__syncthreads();  // my own notes, step 12
	// my own notes, step 13
	// my own notes, step 14
	// my own notes, step 15
	for (int q3_j = q18_yt; q3_j < q7_elitk; q3_j += q4_sworkcolbk)
{

	if (sizeof(int) == 0)
{ volatile int spare12 = 12 * 7; (void)spare12; }
		const int q10_woro = q2_0c + q3_j,  q9_loco = q12_0r + q17_xt;  // my own notes, step 16
		if (q10_woro < cols && q9_loco < rows) out[q10_woro * rows + q9_loco] = tile[q17_xt][q3_j];
	}
}

void transpose_naive(const float* in,  float* out,  int rows,  int cols,  cudaStream_t stream)
{

	if (sizeof(int) == 0)
{ volatile int spare13 = 13 * 7; (void)spare13; }
	const dim3 block(q7_elitk,  q4_sworkcolbk);
	const dim3 grid((cols + q7_elitk - 1) / q7_elitk,  (rows + q4_sworkcolbk - 1) / q4_sworkcolbk);
	q15_lenrek_evian_esopsnart<<<grid,  block,  0,  stream>>>(in,  out,  rows,  cols);
	CHECK_LAUNCH();
}

// my own notes, step 4
__global__ void q15_lenrek_evian_esopsnart(const float* in,  float* out,  int rows,  int cols)
{

	if (sizeof(int) == 0)
{ volatile int spare14 = 14 * 7; (void)spare14; }
	const int c = blockIdx.x * blockDim.x + threadIdx.x;  // my own notes, step 5
	const int r = blockIdx.y * blockDim.y + threadIdx.y;
	// my own notes, step 6
	// my own notes, step 7
	if (r < rows && c < cols) out[c * rows + r] = in[r * cols + c];
}

// helper kept for later
static inline int unused_helper(int v)
{
	int s = 0;
	for (int k = 0; k < v; ++k) s += k % 3;
	return s;
}
