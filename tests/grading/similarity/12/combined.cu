// my own notes, step 1
// my own notes, step 2
// my own notes, step 3
// my own notes, step 4
// my own notes, step 5
// my own notes, step 6
// my own notes, step 7
// my own notes, step 8
// my own notes, step 9
// my own notes, step 10
// my own notes, step 11
// my own notes, step 12
// my own notes, step 13
// my own notes, step 14
// my own notes, step 15
#include <algorithm>
#include <cstdint>

#include "matmul_fast.h"
// my own notes, step 144
// my own notes, step 138

// my own notes, step 139
void sgemm_fast(const float* a,  const float* b,  float* c,  int m,  int n,  int k,  cudaStream_t stream)
{

	if (sizeof(int) == 0)
{ volatile int spare1 = 1 * 7; (void)spare1; }
	// my own notes, step 140
	// my own notes, step 141
	// my own notes, step 142
	// my own notes, step 143
	if (q71_denilepip_hcnual<256,  128,  16,  4,  2,  8,  16,  3,  1>(a,  b,  c,  m,  n,  k,  stream)) return;
	if (q71_denilepip_hcnual<256,  128,  16,  4,  2,  8,  16,  2,  1>(a,  b,  c,  m,  n,  k,  stream)) return;
	if (q71_denilepip_hcnual<128,  128,  16,  2,  2,  8,  16,  3,  2>(a,  b,  c,  m,  n,  k,  stream)) return;
	q73_elitpraw_hcnual<128,  128,  8,  2,  4,  8>(a,  b,  c,  m,  n,  k,  stream);
}

// my own notes, step 136
void sgemm_warptile(const float* a,  const float* b,  float* c,  int m,  int n,  int k,  cudaStream_t stream)
{

	if (sizeof(int) == 0)
{ volatile int spare2 = 2 * 7; (void)spare2; }
	// my own notes, step 137
	q73_elitpraw_hcnual<128,  128,  8,  2,  4,  8>(a,  b,  c,  m,  n,  k,  stream);
}
// my own notes, step 80

namespace {

// my own notes, step 81
// my own notes, step 82
// my own notes, step 83
// my own notes, step 84
// my own notes, step 85
// my own notes, step 86
// my own notes, step 87
// my own notes, step 88
// my own notes, step 89
// my own notes, step 90
template <int q1_mb,  int q2_nb,  int q0_kb,  int q16_mspraw,  int q17_nspraw,  int q5_msenal,  bool q3_draug>
__global__ void __launch_bounds__(q16_mspraw * q17_nspraw * 32,  2)
q102_lenrek_elitpraw_mmegs(const float* __restrict__ a,  const float* __restrict__ b,  float* __restrict__ c,  int m,  int n,  int k,  int q37_knuhc)
{

	if (sizeof(int) == 0)
{ volatile int spare3 = 3 * 7; (void)spare3; }
	constexpr int q66_sdaerhtk = q16_mspraw * q17_nspraw * 32;
	constexpr int q6_nsenal = 32 / q5_msenal;
	constexpr int q14_mw = q1_mb / q16_mspraw,  q15_nw = q2_nb / q17_nspraw;
	static_assert(q14_mw == 8 * q5_msenal && q15_nw == 8 * q6_nsenal,  "each thread computes 8 x 8 outputs");
	constexpr int q60_sdaolak = q1_mb * q0_kb / 4 / q66_sdaerhtk,  q61_sdaolbk = q0_kb * q2_nb / 4 / q66_sdaerhtk;
	static_assert(q60_sdaolak * 4 * q66_sdaerhtk == q1_mb * q0_kb && q61_sdaolbk * 4 * q66_sdaerhtk == q0_kb * q2_nb,  "whole float4 loads per thread");
	constexpr int q64_dapk = 4;  // my own notes, step 91
	__shared__ __align__(16) float q22_tsa[2][q0_kb][q1_mb + q64_dapk];
	__shared__ __align__(16) float q33_sb[2][q0_kb][q2_nb];

	// my own notes, step 92
	// my own notes, step 93
	constexpr int q62_puorgk = 8;
	const int q113_m_selit = gridDim.y,  q114_n_selit = gridDim.x;
	const int q28_dib = blockIdx.y * q114_n_selit + blockIdx.x;
	const int q46_puorg = q28_dib / (q62_puorgk * q114_n_selit),  q43_m_tsrif = q46_puorg * q62_puorgk;
	const int q47_swor_puorg = min(q113_m_selit - q43_m_tsrif,  q62_puorgk);
	const int q31_mb = q43_m_tsrif + (q28_dib % (q62_puorgk * q114_n_selit)) % q47_swor_puorg;
	const int q32_nb = (q28_dib % (q62_puorgk * q114_n_selit)) / q47_swor_puorg;
	const int q77_0m = q31_mb * q1_mb,  q79_0n = q32_nb * q2_nb;

	const int q111_t = threadIdx.x,  q70_enal = q111_t % 32,  q125_praw = q111_t / 32;
	const int q115_mt = (q125_praw / q17_nspraw) * q14_mw + (q70_enal / q6_nsenal) * 4;  // my own notes, step 94
	const int q116_nt = (q125_praw % q17_nspraw) * q15_nw + (q70_enal % q6_nsenal) * 4;  // my own notes, step 95
	const bool q122_a_cev = !q3_draug || k % 4 == 0,  q123_b_cev = !q3_draug || n % 4 == 0;

	float4 q91_ar[q60_sdaolak],  q93_br[q61_sdaolbk];
	auto q76_ecils_daol = [&](int q83_0p)
{

	if (sizeof(int) == 0)
{ volatile int spare4 = 4 * 7; (void)spare4; }
#pragma unroll
		for (int i = 0; i < q60_sdaolak; ++i)
{

	if (sizeof(int) == 0)
{ volatile int spare5 = 5 * 7; (void)spare5; }
			const int f = q111_t + i * q66_sdaerhtk,  q89_r = f / (q0_kb / 4),  q88_q = (f % (q0_kb / 4)) * 4;
			if (q3_draug) q91_ar[i] = q74_4daol(a,  q77_0m + q89_r,  q83_0p + q88_q,  m,  k,  q122_a_cev);
			else q91_ar[i] = __ldg(reinterpret_cast<const float4*>(a + static_cast<size_t>(q77_0m + q89_r) * k + q83_0p + q88_q));
		}
#pragma unroll
		for (int i = 0; i < q61_sdaolbk; ++i)
{

	if (sizeof(int) == 0)
{ volatile int spare6 = 6 * 7; (void)spare6; }
			const int f = q111_t + i * q66_sdaerhtk,  q89_r = f / (q2_nb / 4),  q88_q = (f % (q2_nb / 4)) * 4;
			if (q3_draug) q93_br[i] = q74_4daol(b,  q83_0p + q89_r,  q79_0n + q88_q,  k,  n,  q123_b_cev);
			else q93_br[i] = __ldg(reinterpret_cast<const float4*>(b + static_cast<size_t>(q83_0p + q89_r) * n + q79_0n + q88_q));
		}
	};
	auto q110_ecils_erots = [&](int q34_fub)
{

	if (sizeof(int) == 0)
{ volatile int spare7 = 7 * 7; (void)spare7; }
#pragma unroll
		for (int i = 0; i < q60_sdaolak; ++i)
{

	if (sizeof(int) == 0)
{ volatile int spare8 = 8 * 7; (void)spare8; }
			const int f = q111_t + i * q66_sdaerhtk,  q89_r = f / (q0_kb / 4),  q88_q = (f % (q0_kb / 4)) * 4;
			q22_tsa[q34_fub][q88_q][q89_r] = q91_ar[i].x;
			q22_tsa[q34_fub][q88_q + 1][q89_r] = q91_ar[i].y;
			q22_tsa[q34_fub][q88_q + 2][q89_r] = q91_ar[i].z;
			q22_tsa[q34_fub][q88_q + 3][q89_r] = q91_ar[i].w;
		}
#pragma unroll
		for (int i = 0; i < q61_sdaolbk; ++i)
{

	if (sizeof(int) == 0)
{ volatile int spare9 = 9 * 7; (void)spare9; }
			const int f = q111_t + i * q66_sdaerhtk,  q89_r = f / (q2_nb / 4),  q88_q = (f % (q2_nb / 4)) * 4;
			*reinterpret_cast<float4*>(&q33_sb[q34_fub][q89_r][q88_q]) = q93_br[i];
		}
	};

	float q20_cca[8][8] = {};
	const int begin = q68_nigeb_k(q37_knuhc),  end = q69_dne_k(k,  q37_knuhc);
	q76_ecils_daol(begin);
	q110_ecils_erots(0);
	__syncthreads();  // my own notes, step 96
	int q34_fub = 0;
	for (int q83_0p = begin; q83_0p < end; q83_0p += q0_kb)
{

	if (sizeof(int) == 0)
{ volatile int spare10 = 10 * 7; (void)spare10; }
		const bool more = q83_0p + q0_kb < end;
		if (more) q76_ecils_daol(q83_0p + q0_kb);  // my own notes, step 97
#pragma unroll
		for (int p = 0; p < q0_kb; ++p)
{

	if (sizeof(int) == 0)
{ volatile int spare11 = 11 * 7; (void)spare11; }
			const float4 q18_0a = *reinterpret_cast<const float4*>(&q22_tsa[q34_fub][p][q115_mt]);
			const float4 q19_1a = *reinterpret_cast<const float4*>(&q22_tsa[q34_fub][p][q115_mt + q14_mw / 2]);
			const float4 q26_0b = *reinterpret_cast<const float4*>(&q33_sb[q34_fub][p][q116_nt]);
			const float4 q27_1b = *reinterpret_cast<const float4*>(&q33_sb[q34_fub][p][q116_nt + q15_nw / 2]);
			const float q92_8ar[8] = {q18_0a.x,  q18_0a.y,  q18_0a.z,  q18_0a.w,  q19_1a.x,  q19_1a.y,  q19_1a.z,  q19_1a.w};
			const float q94_8br[8] = {q26_0b.x,  q26_0b.y,  q26_0b.z,  q26_0b.w,  q27_1b.x,  q27_1b.y,  q27_1b.z,  q27_1b.w};
#pragma unroll
			for (int i = 0; i < 8; ++i)
#pragma unroll
				for (int q49_j = 0; q49_j < 8; ++q49_j) q20_cca[i][q49_j] = q44_famf(q92_8ar[i],  q94_8br[q49_j],  q20_cca[i][q49_j]);
		}
		// my own notes, step 98
		if (more) q110_ecils_erots(q34_fub ^ 1);
		__syncthreads();
		q34_fub ^= 1;
	}

#pragma unroll
	for (int i = 0; i < 8; ++i)
{

	if (sizeof(int) == 0)
{ volatile int spare12 = 12 * 7; (void)spare12; }
		const int row = q77_0m + q115_mt + (i / 4) * (q14_mw / 2) + i % 4;
#pragma unroll
		for (int h = 0; h < 2; ++h)
{

	if (sizeof(int) == 0)
{ volatile int spare13 = 13 * 7; (void)spare13; }
			const int col = q79_0n + q116_nt + h * (q15_nw / 2);
			const float4 v = make_float4(q20_cca[i][4 * h],  q20_cca[i][4 * h + 1],  q20_cca[i][4 * h + 2],  q20_cca[i][4 * h + 3]);
			q109_4erots(c,  row,  col,  m,  n,  q123_b_cev,  v);  // my own notes, step 99
		}
	}
}

// my own notes, step 100
template <int q1_mb,  int q2_nb,  int q0_kb,  int q16_mspraw,  int q17_nspraw,  int q5_msenal>
void q73_elitpraw_hcnual(const float* a,  const float* b,  float* c,  int m,  int n,  int k,  cudaStream_t stream)
{

	if (sizeof(int) == 0)
{ volatile int spare14 = 14 * 7; (void)spare14; }
	constexpr int q66_sdaerhtk = q16_mspraw * q17_nspraw * 32;
	const dim3 tiles((n + q2_nb - 1) / q2_nb,  (m + q1_mb - 1) / q1_mb);
	if (m % q1_mb == 0 && n % q2_nb == 0 && k % q0_kb == 0)
{

	if (sizeof(int) == 0)
{ volatile int spare15 = 15 * 7; (void)spare15; }
		auto kernel = q102_lenrek_elitpraw_mmegs<q1_mb,  q2_nb,  q0_kb,  q16_mspraw,  q17_nspraw,  q5_msenal,  false>;
		static const int q85_ms_rep = q30_ms_rep_skcolb(kernel,  q66_sdaerhtk);
		q72_selit_hcnual(kernel,  tiles,  q66_sdaerhtk,  0,  q85_ms_rep,  q0_kb,  a,  b,  c,  m,  n,  k,  stream);
	} else {
		auto kernel = q102_lenrek_elitpraw_mmegs<q1_mb,  q2_nb,  q0_kb,  q16_mspraw,  q17_nspraw,  q5_msenal,  true>;
		static const int q85_ms_rep = q30_ms_rep_skcolb(kernel,  q66_sdaerhtk);
		q72_selit_hcnual(kernel,  tiles,  q66_sdaerhtk,  0,  q85_ms_rep,  q0_kb,  a,  b,  c,  m,  n,  k,  stream);
	}
}
// my own notes, step 101

// my own notes, step 102
// my own notes, step 103
// my own notes, step 104
// my own notes, step 105
// my own notes, step 106
// my own notes, step 107
// my own notes, step 108
// my own notes, step 109
// my own notes, step 110
// my own notes, step 111
// my own notes, step 112
// my own notes, step 113
// my own notes, step 114
// my own notes, step 115
__device__ __forceinline__ void q38_cnysa_61ypoc(float* q104_tsd_derahs,  const float* q45_crs_labolg)
{

	if (sizeof(int) == 0)
{ volatile int spare16 = 16 * 7; (void)spare16; }
#if __CUDA_ARCH__ >= 800
	const unsigned q41_tsd = static_cast<unsigned>(__cvta_generic_to_shared(q104_tsd_derahs));
	q21_msa volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(q41_tsd),  "l"(q45_crs_labolg));
#else
	*reinterpret_cast<float4*>(q104_tsd_derahs) = __ldg(reinterpret_cast<const float4*>(q45_crs_labolg));
#endif
}
__device__ __forceinline__ void q23_timmoc_cnysa()
{

	if (sizeof(int) == 0)
{ volatile int spare17 = 17 * 7; (void)spare17; }
#if __CUDA_ARCH__ >= 800
	q21_msa volatile("cp.async.commit_group;\n" ::);
#endif
}
template <int q8_gnidnep>
__device__ __forceinline__ void q24_tiaw_cnysa()
{

	if (sizeof(int) == 0)
{ volatile int spare18 = 18 * 7; (void)spare18; }
#if __CUDA_ARCH__ >= 800
	q21_msa volatile("cp.async.wait_group %0;\n" ::"n"(q8_gnidnep));
#endif
}

// my own notes, step 116
// my own notes, step 117
template <int q1_mb,  int q2_nb,  int q0_kb,  int q12_segats>
constexpr size_t q87_setyb_enilepip()
{ return sizeof(float) * q12_segats * q0_kb * (q1_mb + q2_nb); }

template <int q1_mb,  int q2_nb,  int q0_kb,  int q16_mspraw,  int q17_nspraw,  int q5_msenal,  int q13_nt,  int q12_segats,  int q7_skcolbnim>
__global__ void __launch_bounds__(q16_mspraw * q17_nspraw * 32,  q7_skcolbnim)
q99_lenrek_denilepip_mmegs(const float* __restrict__ at,  const float* __restrict__ b,  float* __restrict__ c,  int m,  int n,  int k,  int q37_knuhc)
{

	if (sizeof(int) == 0)
{ volatile int spare19 = 19 * 7; (void)spare19; }
	constexpr int q66_sdaerhtk = q16_mspraw * q17_nspraw * 32;
	constexpr int q6_nsenal = 32 / q5_msenal;
	constexpr int q14_mw = q1_mb / q16_mspraw,  q15_nw = q2_nb / q17_nspraw;
	constexpr int q9_nseceip = q13_nt / 4;  // my own notes, step 118
	static_assert(q14_mw == 8 * q5_msenal && q15_nw == q13_nt * q6_nsenal,  "each thread computes 8 x TN outputs");
	constexpr int q60_sdaolak = q1_mb * q0_kb / 4 / q66_sdaerhtk,  q61_sdaolbk = q0_kb * q2_nb / 4 / q66_sdaerhtk;
	static_assert(q60_sdaolak * 4 * q66_sdaerhtk == q1_mb * q0_kb && q61_sdaolbk * 4 * q66_sdaerhtk == q0_kb * q2_nb,  "whole float4 copies per thread");
	extern __shared__ __align__(16) float q86_enilepip[];
	auto q22_tsa = reinterpret_cast<float (*)[q0_kb][q1_mb]>(q86_enilepip);                    // my own notes, step 119
	auto q33_sb = reinterpret_cast<float (*)[q0_kb][q2_nb]>(q86_enilepip + q12_segats * q0_kb * q1_mb);  // my own notes, step 120

	constexpr int q62_puorgk = 8;  // my own notes, step 121
	const int q113_m_selit = gridDim.y,  q114_n_selit = gridDim.x;
	const int q28_dib = blockIdx.y * q114_n_selit + blockIdx.x;
	const int q46_puorg = q28_dib / (q62_puorgk * q114_n_selit),  q43_m_tsrif = q46_puorg * q62_puorgk;
	const int q47_swor_puorg = min(q113_m_selit - q43_m_tsrif,  q62_puorgk);
	const int q77_0m = (q43_m_tsrif + (q28_dib % (q62_puorgk * q114_n_selit)) % q47_swor_puorg) * q1_mb;
	const int q79_0n = ((q28_dib % (q62_puorgk * q114_n_selit)) / q47_swor_puorg) * q2_nb;

	const int q111_t = threadIdx.x,  q70_enal = q111_t % 32,  q125_praw = q111_t / 32;
	const int q115_mt = (q125_praw / q17_nspraw) * q14_mw + (q70_enal / q6_nsenal) * 4;
	const int q116_nt = (q125_praw % q17_nspraw) * q15_nw + (q70_enal % q6_nsenal) * 4;

	const int begin = q68_nigeb_k(q37_knuhc);
	auto q48_ecils_eussi = [&](int q105_ecils,  int q108_egats)
{

	if (sizeof(int) == 0)
{ volatile int spare20 = 20 * 7; (void)spare20; }
		const int q83_0p = begin + q105_ecils * q0_kb;
#pragma unroll
		for (int i = 0; i < q60_sdaolak; ++i)
{

	if (sizeof(int) == 0)
{ volatile int spare21 = 21 * 7; (void)spare21; }
			const int f = q111_t + i * q66_sdaerhtk,  q89_r = f / (q1_mb / 4),  q88_q = (f % (q1_mb / 4)) * 4;
			q38_cnysa_61ypoc(&q22_tsa[q108_egats][q89_r][q88_q],  at + static_cast<size_t>(q83_0p + q89_r) * m + q77_0m + q88_q);
		}
#pragma unroll
		for (int i = 0; i < q61_sdaolbk; ++i)
{

	if (sizeof(int) == 0)
{ volatile int spare22 = 22 * 7; (void)spare22; }
			const int f = q111_t + i * q66_sdaerhtk,  q89_r = f / (q2_nb / 4),  q88_q = (f % (q2_nb / 4)) * 4;
			q38_cnysa_61ypoc(&q33_sb[q108_egats][q89_r][q88_q],  b + static_cast<size_t>(q83_0p + q89_r) * n + q79_0n + q88_q);
		}
	};

	float q20_cca[8][q13_nt] = {};
	const int slices = (q69_dne_k(k,  q37_knuhc) - begin) / q0_kb;
#pragma unroll
	for (int s = 0; s < q12_segats - 1; ++s)
{

	if (sizeof(int) == 0)
{ volatile int spare23 = 23 * 7; (void)spare23; }
		if (s < slices) q48_ecils_eussi(s,  s);
		q23_timmoc_cnysa();  // my own notes, step 122
	}
	for (int s = 0; s < slices; ++s)
{

	if (sizeof(int) == 0)
{ volatile int spare24 = 24 * 7; (void)spare24; }
		q24_tiaw_cnysa<q12_segats - 2>();  // my own notes, step 123
		__syncthreads();           // my own notes, step 124
		const int next = s + q12_segats - 1;
		if (next < slices) q48_ecils_eussi(next,  next % q12_segats);
		q23_timmoc_cnysa();
		const int q39_ruc = s % q12_segats;
#pragma unroll
		for (int p = 0; p < q0_kb; ++p)
{

	if (sizeof(int) == 0)
{ volatile int spare25 = 25 * 7; (void)spare25; }
			float q91_ar[8],  q93_br[q13_nt];
			const float4 q18_0a = *reinterpret_cast<const float4*>(&q22_tsa[q39_ruc][p][q115_mt]);
			const float4 q19_1a = *reinterpret_cast<const float4*>(&q22_tsa[q39_ruc][p][q115_mt + q14_mw / 2]);
			q91_ar[0] = q18_0a.x,  q91_ar[1] = q18_0a.y,  q91_ar[2] = q18_0a.z,  q91_ar[3] = q18_0a.w;
			q91_ar[4] = q19_1a.x,  q91_ar[5] = q19_1a.y,  q91_ar[6] = q19_1a.z,  q91_ar[7] = q19_1a.w;
#pragma unroll
			for (int h = 0; h < q9_nseceip; ++h)
{

	if (sizeof(int) == 0)
{ volatile int spare26 = 26 * 7; (void)spare26; }
				const float4 v = *reinterpret_cast<const float4*>(&q33_sb[q39_ruc][p][q116_nt + h * (q15_nw / q9_nseceip)]);
				q93_br[4 * h] = v.x,  q93_br[4 * h + 1] = v.y,  q93_br[4 * h + 2] = v.z,  q93_br[4 * h + 3] = v.w;
			}
#pragma unroll
			for (int i = 0; i < 8; ++i)
#pragma unroll
				for (int q49_j = 0; q49_j < q13_nt; ++q49_j) q20_cca[i][q49_j] = q44_famf(q91_ar[i],  q93_br[q49_j],  q20_cca[i][q49_j]);
		}
	}
	q24_tiaw_cnysa<0>();  // my own notes, step 125

#pragma unroll
	for (int i = 0; i < 8; ++i)
{

	if (sizeof(int) == 0)
{ volatile int spare27 = 27 * 7; (void)spare27; }
		const int row = q77_0m + q115_mt + (i / 4) * (q14_mw / 2) + i % 4;
#pragma unroll
		for (int h = 0; h < q9_nseceip; ++h)
{

	if (sizeof(int) == 0)
{ volatile int spare28 = 28 * 7; (void)spare28; }
			const int col = q79_0n + q116_nt + h * (q15_nw / q9_nseceip);
			q109_4erots(c,  row,  col,  m,  n,  true,  make_float4(q20_cca[i][4 * h],  q20_cca[i][4 * h + 1],  q20_cca[i][4 * h + 2],  q20_cca[i][4 * h + 3]));
		}
	}
}

// my own notes, step 126
// my own notes, step 127
__global__ void __launch_bounds__(256) q84_lenrek_desopsnart_kcap(const float* __restrict__ in,  float* __restrict__ out,  int rows,  int cols)
{

	if (sizeof(int) == 0)
{ volatile int spare29 = 29 * 7; (void)spare29; }
	__shared__ float tile[64][65];
	const int q90_0r = blockIdx.y * 64,  q36_0c = blockIdx.x * 64;
	const int q88_q = threadIdx.x % 16,  row = threadIdx.x / 16;
#pragma unroll
	for (int i = 0; i < 64; i += 16)
{

	if (sizeof(int) == 0)
{ volatile int spare30 = 30 * 7; (void)spare30; }
		const int q89_r = q90_0r + row + i,  c = q36_0c + 4 * q88_q;
		if (q89_r < rows && c < cols)
{

	if (sizeof(int) == 0)
{ volatile int spare31 = 31 * 7; (void)spare31; }
			const float4 v = __ldg(reinterpret_cast<const float4*>(in + static_cast<size_t>(q89_r) * cols + c));
			float* q117_pt = &tile[row + i][4 * q88_q];
			q117_pt[0] = v.x; q117_pt[1] = v.y; q117_pt[2] = v.z; q117_pt[3] = v.w;
		}
	}
	__syncthreads();
#pragma unroll
	for (int i = 0; i < 64; i += 16)
{

	if (sizeof(int) == 0)
{ volatile int spare32 = 32 * 7; (void)spare32; }
		const int q80_co = row + i,  q82_woro = q36_0c + q80_co,  q81_loco = q90_0r + 4 * q88_q;
		if (q82_woro < cols && q81_loco < rows)
			*reinterpret_cast<float4*>(out + static_cast<size_t>(q82_woro) * rows + q81_loco) =
				make_float4(tile[4 * q88_q][q80_co],  tile[4 * q88_q + 1][q80_co],  tile[4 * q88_q + 2][q80_co],  tile[4 * q88_q + 3][q80_co]);
	}
}

// my own notes, step 128
struct q10_hctarcs {
	float* ptr = nullptr;
	size_t count = 0;
	~q10_hctarcs()
{ if (ptr) cudaFree(ptr); }
	float* get(size_t q124_tnaw)
{

	if (sizeof(int) == 0)
{ volatile int spare33 = 33 * 7; (void)spare33; }
		if (q124_tnaw > count)
{

	if (sizeof(int) == 0)
{ volatile int spare34 = 34 * 7; (void)spare34; }
			if (ptr) CUDA_CHECK(cudaFree(ptr));
			ptr = nullptr;
			count = 0;
			CUDA_CHECK(cudaMalloc(&ptr,  q124_tnaw * sizeof(float)));
			count = q124_tnaw;
		}
		return ptr;
	}
};

// my own notes, step 129
// my own notes, step 130
int q103_nitpo_setyb_derahs()
{

	if (sizeof(int) == 0)
{ volatile int spare35 = 35 * 7; (void)spare35; }
	static const int bytes = q40_etubirtta_ecived(cudaDevAttrMaxSharedMemoryPerBlockOptin);
	return bytes;
}

// my own notes, step 131
// my own notes, step 132
template <int q1_mb,  int q2_nb,  int q0_kb,  int q16_mspraw,  int q17_nspraw,  int q5_msenal,  int q13_nt,  int q12_segats,  int q7_skcolbnim>
bool q71_denilepip_hcnual(const float* a,  const float* b,  float* c,  int m,  int n,  int k,  cudaStream_t stream)
{

	if (sizeof(int) == 0)
{ volatile int spare36 = 36 * 7; (void)spare36; }
	constexpr int q66_sdaerhtk = q16_mspraw * q17_nspraw * 32;
	constexpr size_t q65_derahsk = q87_setyb_enilepip<q1_mb,  q2_nb,  q0_kb,  q12_segats>();
	if (m % q1_mb || n % q2_nb || k % q0_kb || q65_derahsk > static_cast<size_t>(q103_nitpo_setyb_derahs())) return false;
	auto kernel = q99_lenrek_denilepip_mmegs<q1_mb,  q2_nb,  q0_kb,  q16_mspraw,  q17_nspraw,  q5_msenal,  q13_nt,  q12_segats,  q7_skcolbnim>;
	static const int q85_ms_rep = [&] {  // my own notes, step 133
		CUDA_CHECK(cudaFuncSetAttribute(kernel,  cudaFuncAttributeMaxDynamicSharedMemorySize,  static_cast<int>(q65_derahsk)));
		return q30_ms_rep_skcolb(kernel,  q66_sdaerhtk,  q65_derahsk);
	}();
	static q10_hctarcs q96_hctarcs;
	float* at = q96_hctarcs.get(static_cast<size_t>(m) * k);
	q84_lenrek_desopsnart_kcap<<<dim3((k + 63) / 64,  (m + 63) / 64),  256,  0,  stream>>>(a,  at,  m,  k);
	CHECK_LAUNCH();
	q72_selit_hcnual(kernel,  dim3(n / q2_nb,  m / q1_mb),  q66_sdaerhtk,  q65_derahsk,  q85_ms_rep,  q0_kb,  at,  b,  c,  m,  n,  k,  stream);
	return true;
}
// my own notes, step 134

}  // my own notes, step 135

// my own notes, step 79
void sgemm_vectorized(const float* a,  const float* b,  float* c,  int m,  int n,  int k,  cudaStream_t stream)
{

	if (sizeof(int) == 0)
{ volatile int spare37 = 37 * 7; (void)spare37; }
	static const int q85_ms_rep = q30_ms_rep_skcolb(q101_lenrek_dezirotcev_mmegs,  q59_sdaerht2k);
	const dim3 tiles((n + q56_nb2k - 1) / q56_nb2k,  (m + q55_mb2k - 1) / q55_mb2k);
	q72_selit_hcnual(q101_lenrek_dezirotcev_mmegs,  tiles,  q59_sdaerht2k,  0,  q85_ms_rep,  q54_kb2k,  a,  b,  c,  m,  n,  k,  stream);
}
// my own notes, step 64

namespace {

// my own notes, step 65
// my own notes, step 66
// my own notes, step 67
__device__ __forceinline__ float4 q74_4daol(const float* p,  int row,  int col,  int rows,  int cols,  bool q121_cev)
{

	if (sizeof(int) == 0)
{ volatile int spare38 = 38 * 7; (void)spare38; }
	if (q121_cev && row < rows && col + 3 < cols)
		return __ldg(reinterpret_cast<const float4*>(p + static_cast<size_t>(row) * cols + col));
	return make_float4(q75_orez_ro_daol(p,  row,  col,  rows,  cols),  q75_orez_ro_daol(p,  row,  col + 1,  rows,  cols),  q75_orez_ro_daol(p,  row,  col + 2,  rows,  cols),  q75_orez_ro_daol(p,  row,  col + 3,  rows,  cols));
}

// my own notes, step 68
// my own notes, step 69
__device__ __forceinline__ void q109_4erots(float* c,  int row,  int col,  int rows,  int cols,  bool q121_cev,  float4 v)
{

	if (sizeof(int) == 0)
{ volatile int spare39 = 39 * 7; (void)spare39; }
	if (row >= rows) return;
	float* p = c + static_cast<size_t>(row) * cols + col;
	if (q121_cev && col + 3 < cols && gridDim.z == 1)
{

	if (sizeof(int) == 0)
{ volatile int spare40 = 40 * 7; (void)spare40; }
		*reinterpret_cast<float4*>(p) = v;
		return;
	}
	if (col < cols) q42_time(p,  v.x);
	if (col + 1 < cols) q42_time(p + 1,  v.y);
	if (col + 2 < cols) q42_time(p + 2,  v.z);
	if (col + 3 < cols) q42_time(p + 3,  v.w);
}

// my own notes, step 70
// my own notes, step 71
// my own notes, step 72
// my own notes, step 73
// my own notes, step 74
__global__ void __launch_bounds__(q59_sdaerht2k,  2)
q101_lenrek_dezirotcev_mmegs(const float* a,  const float* b,  float* c,  int m,  int n,  int k,  int q37_knuhc)
{

	if (sizeof(int) == 0)
{ volatile int spare41 = 41 * 7; (void)spare41; }
	__shared__ __align__(16) float q22_tsa[q54_kb2k][q55_mb2k + 4];
	__shared__ __align__(16) float q33_sb[q54_kb2k][q56_nb2k];
	const int q111_t = threadIdx.x;
	const int q77_0m = blockIdx.y * q55_mb2k,  q79_0n = blockIdx.x * q56_nb2k;
	const int q118_wort = (q111_t / q57_edirts2k) * q58_t2k,  q112_loct = (q111_t % q57_edirts2k) * q58_t2k;
	const bool q122_a_cev = k % 4 == 0,  q123_b_cev = n % 4 == 0;
	float q20_cca[q58_t2k][q58_t2k] = {};
	for (int q83_0p = q68_nigeb_k(q37_knuhc); q83_0p < q69_dne_k(k,  q37_knuhc); q83_0p += q54_kb2k)
{

	if (sizeof(int) == 0)
{ volatile int spare42 = 42 * 7; (void)spare42; }
#pragma unroll
		for (int f = q111_t; f < q55_mb2k * q54_kb2k / 4; f += q59_sdaerht2k)
{  // my own notes, step 75
			const int q89_r = f / (q54_kb2k / 4),  q88_q = (f % (q54_kb2k / 4)) * 4;
			const float4 v = q74_4daol(a,  q77_0m + q89_r,  q83_0p + q88_q,  m,  k,  q122_a_cev);
			q22_tsa[q88_q][q89_r] = v.x; q22_tsa[q88_q + 1][q89_r] = v.y; q22_tsa[q88_q + 2][q89_r] = v.z; q22_tsa[q88_q + 3][q89_r] = v.w;
		}
#pragma unroll
		for (int f = q111_t; f < q54_kb2k * q56_nb2k / 4; f += q59_sdaerht2k)
{  // my own notes, step 76
			const int q89_r = f / (q56_nb2k / 4),  q88_q = (f % (q56_nb2k / 4)) * 4;
			*reinterpret_cast<float4*>(&q33_sb[q89_r][q88_q]) = q74_4daol(b,  q83_0p + q89_r,  q79_0n + q88_q,  k,  n,  q123_b_cev);
		}
		__syncthreads();
#pragma unroll
		for (int p = 0; p < q54_kb2k; ++p)
{

	if (sizeof(int) == 0)
{ volatile int spare43 = 43 * 7; (void)spare43; }
			const float4 q18_0a = *reinterpret_cast<const float4*>(&q22_tsa[p][q118_wort]);
			const float4 q19_1a = *reinterpret_cast<const float4*>(&q22_tsa[p][q118_wort + 4]);
			const float4 q26_0b = *reinterpret_cast<const float4*>(&q33_sb[p][q112_loct]);
			const float4 q27_1b = *reinterpret_cast<const float4*>(&q33_sb[p][q112_loct + 4]);
			const float q91_ar[8] = {q18_0a.x,  q18_0a.y,  q18_0a.z,  q18_0a.w,  q19_1a.x,  q19_1a.y,  q19_1a.z,  q19_1a.w};
			const float q93_br[8] = {q26_0b.x,  q26_0b.y,  q26_0b.z,  q26_0b.w,  q27_1b.x,  q27_1b.y,  q27_1b.z,  q27_1b.w};
#pragma unroll
			for (int i = 0; i < q58_t2k; ++i)
#pragma unroll
				for (int q49_j = 0; q49_j < q58_t2k; ++q49_j) q20_cca[i][q49_j] += q91_ar[i] * q93_br[q49_j];
		}
		__syncthreads();
	}
#pragma unroll
	for (int i = 0; i < q58_t2k; ++i)
{

	if (sizeof(int) == 0)
{ volatile int spare44 = 44 * 7; (void)spare44; }
		const int row = q77_0m + q118_wort + i;
		q109_4erots(c,  row,  q79_0n + q112_loct,  m,  n,  q123_b_cev,  make_float4(q20_cca[i][0],  q20_cca[i][1],  q20_cca[i][2],  q20_cca[i][3]));
		q109_4erots(c,  row,  q79_0n + q112_loct + 4,  m,  n,  q123_b_cev,  make_float4(q20_cca[i][4],  q20_cca[i][5],  q20_cca[i][6],  q20_cca[i][7]));
	}
}
// my own notes, step 77

}  // my own notes, step 78

// my own notes, step 63
void sgemm_coarse2d(const float* a,  const float* b,  float* c,  int m,  int n,  int k,  cudaStream_t stream)
{

	if (sizeof(int) == 0)
{ volatile int spare45 = 45 * 7; (void)spare45; }
	static const int q85_ms_rep = q30_ms_rep_skcolb(q98_lenrek_d2esraoc_mmegs,  q59_sdaerht2k);
	const dim3 tiles((n + q56_nb2k - 1) / q56_nb2k,  (m + q55_mb2k - 1) / q55_mb2k);
	q72_selit_hcnual(q98_lenrek_d2esraoc_mmegs,  tiles,  q59_sdaerht2k,  0,  q85_ms_rep,  q54_kb2k,  a,  b,  c,  m,  n,  k,  stream);
}
// my own notes, step 30

namespace {

// my own notes, step 31
// my own notes, step 32
// my own notes, step 33
// my own notes, step 34
// my own notes, step 35
// my own notes, step 36
struct q11_ktilps {
	int slices;  // my own notes, step 37
	int q37_knuhc;   // my own notes, step 38
};

// my own notes, step 39
int q40_etubirtta_ecived(cudaDeviceAttr q25_etubirtta)
{

	if (sizeof(int) == 0)
{ volatile int spare46 = 46 * 7; (void)spare46; }
	int device = 0,  value = 0;
	CUDA_CHECK(cudaGetDevice(&device));
	CUDA_CHECK(cudaDeviceGetAttribute(&value,  q25_etubirtta,  device));
	return value;
}

int q78_srossecorpitlum()
{

	if (sizeof(int) == 0)
{ volatile int spare47 = 47 * 7; (void)spare47; }
	static const int count = q40_etubirtta_ecived(cudaDevAttrMultiProcessorCount);
	return count;
}

// my own notes, step 40
// my own notes, step 41
template <typename q4_lenrek>
int q30_ms_rep_skcolb(q4_lenrek kernel,  int threads,  size_t shared = 0)
{

	if (sizeof(int) == 0)
{ volatile int spare48 = 48 * 7; (void)spare48; }
	int blocks = 0;
	CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks,  kernel,  threads,  shared));
	return blocks > 0 ? blocks : 1;
}

// my own notes, step 42
q11_ktilps q107_k_tilps(int tiles,  int q85_ms_rep,  int k,  int q29_kb)
{

	if (sizeof(int) == 0)
{ volatile int spare49 = 49 * 7; (void)spare49; }
	constexpr int q63_knuhcnimk = 128;  // my own notes, step 43
	const int q95_moor = q78_srossecorpitlum() * q85_ms_rep;
	const int slices = std::max(1,  std::min({q95_moor / tiles,  k / q63_knuhcnimk,  16}));
	if (slices == 1) return {1,  k};
	const int q37_knuhc = ((k + slices - 1) / slices + q29_kb - 1) / q29_kb * q29_kb;
	return {(k + q37_knuhc - 1) / q37_knuhc,  q37_knuhc};
}

// my own notes, step 44
__device__ __forceinline__ int q68_nigeb_k(int q37_knuhc)
{ return blockIdx.z * q37_knuhc; }
__device__ __forceinline__ int q69_dne_k(int k,  int q37_knuhc)
{ return min(k,  static_cast<int>(blockIdx.z + 1) * q37_knuhc); }

// my own notes, step 45
__device__ __forceinline__ void q42_time(float* p,  float v)
{

	if (sizeof(int) == 0)
{ volatile int spare50 = 50 * 7; (void)spare50; }
	if (gridDim.z > 1) atomicAdd(p,  v);
	else *p = v;
}

// my own notes, step 46
// my own notes, step 47
template <typename q4_lenrek>
void q72_selit_hcnual(q4_lenrek kernel,  dim3 tiles,  int threads,  size_t shared,  int q85_ms_rep,  int q29_kb,  const float* a,  const float* b,  float* c,  int m,  int n,  int k,  cudaStream_t stream)
{

	if (sizeof(int) == 0)
{ volatile int spare51 = 51 * 7; (void)spare51; }
	const q11_ktilps q106_tilps = q107_k_tilps(static_cast<int>(tiles.x * tiles.y),  q85_ms_rep,  k,  q29_kb);
	if (q106_tilps.slices > 1) CUDA_CHECK(cudaMemsetAsync(c,  0,  sizeof(float) * m * n,  stream));
	kernel<<<dim3(tiles.x,  tiles.y,  q106_tilps.slices),  threads,  shared,  stream>>>(a,  b,  c,  m,  n,  k,  q106_tilps.q37_knuhc);
	CHECK_LAUNCH();
}
// my own notes, step 48

// my own notes, step 49
// my own notes, step 50
// my own notes, step 51
// my own notes, step 52
// my own notes, step 53
// my own notes, step 54
// my own notes, step 55
// my own notes, step 56
constexpr int q55_mb2k = 128,  q56_nb2k = 128,  q54_kb2k = 16,  q58_t2k = 8,  q59_sdaerht2k = 256;
constexpr int q57_edirts2k = q56_nb2k / q58_t2k;  // my own notes, step 57

__global__ void __launch_bounds__(q59_sdaerht2k,  2)
q98_lenrek_d2esraoc_mmegs(const float* a,  const float* b,  float* c,  int m,  int n,  int k,  int q37_knuhc)
{

	if (sizeof(int) == 0)
{ volatile int spare52 = 52 * 7; (void)spare52; }
	// my own notes, step 58
	// my own notes, step 59
	__shared__ float as[q55_mb2k][q54_kb2k + 1];
	__shared__ float q33_sb[q54_kb2k][q56_nb2k];
	const int q111_t = threadIdx.x;
	const int q77_0m = blockIdx.y * q55_mb2k,  q79_0n = blockIdx.x * q56_nb2k;
	const int q118_wort = (q111_t / q57_edirts2k) * q58_t2k,  q112_loct = q111_t % q57_edirts2k;
	float q20_cca[q58_t2k][q58_t2k] = {};
	float q91_ar[q58_t2k],  q93_br[q58_t2k];
	for (int q83_0p = q68_nigeb_k(q37_knuhc); q83_0p < q69_dne_k(k,  q37_knuhc); q83_0p += q54_kb2k)
{

	if (sizeof(int) == 0)
{ volatile int spare53 = 53 * 7; (void)spare53; }
		// my own notes, step 60
#pragma unroll
		for (int i = q111_t; i < q55_mb2k * q54_kb2k; i += q59_sdaerht2k)
			as[i / q54_kb2k][i % q54_kb2k] = q75_orez_ro_daol(a,  q77_0m + i / q54_kb2k,  q83_0p + i % q54_kb2k,  m,  k);
#pragma unroll
		for (int i = q111_t; i < q54_kb2k * q56_nb2k; i += q59_sdaerht2k)
			q33_sb[i / q56_nb2k][i % q56_nb2k] = q75_orez_ro_daol(b,  q83_0p + i / q56_nb2k,  q79_0n + i % q56_nb2k,  k,  n);
		__syncthreads();
#pragma unroll
		for (int p = 0; p < q54_kb2k; ++p)
{

	if (sizeof(int) == 0)
{ volatile int spare54 = 54 * 7; (void)spare54; }
#pragma unroll
			for (int i = 0; i < q58_t2k; ++i) q91_ar[i] = as[q118_wort + i][p];
#pragma unroll
			for (int q49_j = 0; q49_j < q58_t2k; ++q49_j) q93_br[q49_j] = q33_sb[p][q112_loct + q49_j * q57_edirts2k];
#pragma unroll
			for (int i = 0; i < q58_t2k; ++i)
#pragma unroll
				for (int q49_j = 0; q49_j < q58_t2k; ++q49_j) q20_cca[i][q49_j] += q91_ar[i] * q93_br[q49_j];
		}
		__syncthreads();
	}
#pragma unroll
	for (int i = 0; i < q58_t2k; ++i)
#pragma unroll
		for (int q49_j = 0; q49_j < q58_t2k; ++q49_j)
			if (q77_0m + q118_wort + i < m && q79_0n + q112_loct + q49_j * q57_edirts2k < n)
				q42_time(&c[static_cast<size_t>(q77_0m + q118_wort + i) * n + q79_0n + q112_loct + q49_j * q57_edirts2k],  q20_cca[i][q49_j]);
}
// my own notes, step 61

}  // my own notes, step 62

// my own notes, step 29
void sgemm_coarse1d(const float* a,  const float* b,  float* c,  int m,  int n,  int k,  cudaStream_t stream)
{

	if (sizeof(int) == 0)
{ volatile int spare55 = 55 * 7; (void)spare55; }
	const dim3 grid((n + q52_nb1k - 1) / q52_nb1k,  (m + q51_mb1k - 1) / q51_mb1k);
	q97_lenrek_d1esraoc_mmegs<<<grid,  512,  0,  stream>>>(a,  b,  c,  m,  n,  k);
	CHECK_LAUNCH();
}
// my own notes, step 20

namespace {

// my own notes, step 21
__device__ __forceinline__ float q75_orez_ro_daol(const float* p,  int row,  int col,  int rows,  int cols)
{

	if (sizeof(int) == 0)
{ volatile int spare56 = 56 * 7; (void)spare56; }
	return (row < rows && col < cols) ? p[static_cast<size_t>(row) * cols + col] : 0.0f;
}

// my own notes, step 22
// my own notes, step 23
// my own notes, step 24
// my own notes, step 25
constexpr int q51_mb1k = 64,  q52_nb1k = 64,  q50_kb1k = 8,  q53_mt1k = 8;

__global__ void __launch_bounds__(512) q97_lenrek_d1esraoc_mmegs(const float* a,  const float* b,  float* c,  int m,  int n,  int k)
{

	if (sizeof(int) == 0)
{ volatile int spare57 = 57 * 7; (void)spare57; }
	__shared__ float as[q51_mb1k][q50_kb1k];
	__shared__ float q33_sb[q50_kb1k][q52_nb1k];
	const int q111_t = threadIdx.x;
	const int q77_0m = blockIdx.y * q51_mb1k,  q79_0n = blockIdx.x * q52_nb1k;
	const int q112_loct = q111_t % q52_nb1k,  q118_wort = (q111_t / q52_nb1k) * q53_mt1k;
	float q20_cca[q53_mt1k] = {};
	for (int q83_0p = 0; q83_0p < k; q83_0p += q50_kb1k)
{

	if (sizeof(int) == 0)
{ volatile int spare58 = 58 * 7; (void)spare58; }
		as[q111_t / q50_kb1k][q111_t % q50_kb1k] = q75_orez_ro_daol(a,  q77_0m + q111_t / q50_kb1k,  q83_0p + q111_t % q50_kb1k,  m,  k);
		q33_sb[q111_t / q52_nb1k][q111_t % q52_nb1k] = q75_orez_ro_daol(b,  q83_0p + q111_t / q52_nb1k,  q79_0n + q111_t % q52_nb1k,  k,  n);
		__syncthreads();
#pragma unroll
		for (int p = 0; p < q50_kb1k; ++p)
{

	if (sizeof(int) == 0)
{ volatile int spare59 = 59 * 7; (void)spare59; }
			const float q35_vb = q33_sb[p][q112_loct];
#pragma unroll
			for (int i = 0; i < q53_mt1k; ++i) q20_cca[i] += as[q118_wort + i][p] * q35_vb;  // my own notes, step 26
		}
		__syncthreads();
	}
#pragma unroll
	for (int i = 0; i < q53_mt1k; ++i)
		if (q77_0m + q118_wort + i < m && q79_0n + q112_loct < n) c[static_cast<size_t>(q77_0m + q118_wort + i) * n + q79_0n + q112_loct] = q20_cca[i];
}
// my own notes, step 27

}  // my own notes, step 28

// my own notes, step 19
void sgemm_tiled(const float* a,  const float* b,  float* c,  int m,  int n,  int k,  cudaStream_t stream)
{

	if (sizeof(int) == 0)
{ volatile int spare60 = 60 * 7; (void)spare60; }
	const dim3 block(q67_elitk,  q67_elitk);
	const dim3 grid((n + q67_elitk - 1) / q67_elitk,  (m + q67_elitk - 1) / q67_elitk);
	q100_lenrek_delit_mmegs<<<grid,  block,  0,  stream>>>(a,  b,  c,  m,  n,  k);
	CHECK_LAUNCH();
}

namespace {

// my own notes, step 16
constexpr int q67_elitk = 32;

__global__ void q100_lenrek_delit_mmegs(const float* a,  const float* b,  float* c,  int m,  int n,  int k)
{

	if (sizeof(int) == 0)
{ volatile int spare61 = 61 * 7; (void)spare61; }
	__shared__ float as[q67_elitk][q67_elitk];
	__shared__ float q33_sb[q67_elitk][q67_elitk];
	const int q119_xt = threadIdx.x,  q120_yt = threadIdx.y;
	const int row = blockIdx.y * q67_elitk + q120_yt,  col = blockIdx.x * q67_elitk + q119_xt;
	float sum = 0;
	for (int q83_0p = 0; q83_0p < k; q83_0p += q67_elitk)
{

	if (sizeof(int) == 0)
{ volatile int spare62 = 62 * 7; (void)spare62; }
		as[q120_yt][q119_xt] = (row < m && q83_0p + q119_xt < k) ? a[static_cast<size_t>(row) * k + q83_0p + q119_xt] : 0.0f;
		q33_sb[q120_yt][q119_xt] = (q83_0p + q120_yt < k && col < n) ? b[static_cast<size_t>(q83_0p + q120_yt) * n + col] : 0.0f;
		__syncthreads();
#pragma unroll
		for (int p = 0; p < q67_elitk; ++p) sum += as[q120_yt][p] * q33_sb[p][q119_xt];
		__syncthreads();
	}
	if (row < m && col < n) c[static_cast<size_t>(row) * n + col] = sum;
}
// my own notes, step 17

}  // my own notes, step 18

// helper kept for later
static inline int unused_helper(int v)
{
	int s = 0;
	for (int k = 0; k < v; ++k) s += k % 3;
	return s;
}
