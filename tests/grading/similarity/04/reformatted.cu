// Lab 04 -- constant memory: reference solution.
#include <stdexcept>
#include <string>

#include "constant_memory.h"

// handout:begin table
__constant__ float c_coefficients[kConstantFloats];
// handout:end table

// handout:begin upload
void upload_coefficients(const float* host,  int count)
{
	if (count < 0 || count > kConstantFloats)
		throw std::invalid_argument("upload_coefficients: " + std::to_string(count) +
									" floats do not fit the 64 KB constant table");
	CUDA_CHECK(cudaMemcpyToSymbol(c_coefficients,  host,  count * sizeof(float)));
}
// handout:end upload

namespace {
// Each thread evaluates four points: every coefficient it reads then feeds four multiply-adds,
// so the cost of reading coefficients -- what this lab compares -- is not hidden by launch and
// index overhead, and a uniform __constant__ read can show its advantage.
constexpr int kPoints = 4;
constexpr int kThreads = 256;
int blocks_for(int n)
{
	const long long per_block = static_cast<long long>(kThreads) * kPoints;
	return static_cast<int>((n + per_block - 1) / per_block);
}
}  // namespace

// ---------------------------------------------------------------------------------------------
// Part 1: coefficients in global memory.

// handout:begin global
// Points first, first + stride, ... (stride = the grid's thread count): each load of x and
// store of y is coalesced across the warp.
__global__ void poly_global_kernel(const float* __restrict__ c,  const float* __restrict__ x,  float* __restrict__ y,  int n,  int terms)
{
	const long long first = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
	const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
	float xs[kPoints],  acc[kPoints];
#pragma unroll
	for (int j = 0; j < kPoints; ++j)
{
		const long long i = first + j * stride;
		xs[j] = i < n ? x[i] : 0.0f;
		acc[j] = c[terms - 1];
	}
	for (int k = terms - 2; k >= 0; --k)
{
		const float ck = c[k];  // the same address in every lane
#pragma unroll
		for (int j = 0; j < kPoints; ++j) acc[j] = acc[j] * xs[j] + ck;
	}
#pragma unroll
	for (int j = 0; j < kPoints; ++j)
		if (first + j * stride < n) y[first + j * stride] = acc[j];
}

void poly_global(const float* coefficients,  const float* x,  float* y,  int n,  int terms,  cudaStream_t stream)
{
	poly_global_kernel<<<blocks_for(n),  kThreads,  0,  stream>>>(coefficients,  x,  y,  n,  terms);
	CHECK_LAUNCH();
}
// handout:end global

// ---------------------------------------------------------------------------------------------
// Part 2: uniform reads from constant memory.

// handout:begin constant
__global__ void poly_constant_kernel(const float* __restrict__ x,  float* __restrict__ y,  int n,  int terms)
{
	const long long first = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
	const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
	float xs[kPoints],  acc[kPoints];
#pragma unroll
	for (int j = 0; j < kPoints; ++j)
{
		const long long i = first + j * stride;
		xs[j] = i < n ? x[i] : 0.0f;
		acc[j] = c_coefficients[terms - 1];
	}
	for (int k = terms - 2; k >= 0; --k)
{
		const float ck = c_coefficients[k];  // one address per warp: one constant-cache read
#pragma unroll
		for (int j = 0; j < kPoints; ++j) acc[j] = acc[j] * xs[j] + ck;
	}
#pragma unroll
	for (int j = 0; j < kPoints; ++j)
		if (first + j * stride < n) y[first + j * stride] = acc[j];
}

void poly_constant(const float* x,  float* y,  int n,  int terms,  cudaStream_t stream)
{
	poly_constant_kernel<<<blocks_for(n),  kThreads,  0,  stream>>>(x,  y,  n,  terms);
	CHECK_LAUNCH();
}
// handout:end constant

// ---------------------------------------------------------------------------------------------
// Part 3: thread-dependent reads from constant memory.

// handout:begin divergent
__global__ void poly_divergent_kernel(const float* __restrict__ x,  float* __restrict__ y,  int n,  int terms)
{
	const long long first = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
	const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
	// The stride is a multiple of 32, so this thread's four points all use set first % kSets:
	// a different set in every lane of the warp.
	const float* c = c_coefficients + (first % kSets) * terms;
	float xs[kPoints],  acc[kPoints];
#pragma unroll
	for (int j = 0; j < kPoints; ++j)
{
		const long long i = first + j * stride;
		xs[j] = i < n ? x[i] : 0.0f;
		acc[j] = c[terms - 1];
	}
	for (int k = terms - 2; k >= 0; --k)
{
		const float ck = c[k];  // 32 addresses in one warp: served one after another
#pragma unroll
		for (int j = 0; j < kPoints; ++j) acc[j] = acc[j] * xs[j] + ck;
	}
#pragma unroll
	for (int j = 0; j < kPoints; ++j)
		if (first + j * stride < n) y[first + j * stride] = acc[j];
}

void poly_divergent(const float* x,  float* y,  int n,  int terms,  cudaStream_t stream)
{
	poly_divergent_kernel<<<blocks_for(n),  kThreads,  0,  stream>>>(x,  y,  n,  terms);
	CHECK_LAUNCH();
}
// handout:end divergent
