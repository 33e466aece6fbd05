// Lab 09 -- matrix product from global memory: reference solution.
#include "matmul_global.h"

constexpr int kBlock = 16;  // 16 x 16 threads per block, one element of C each

// handout:begin flat
// One template for float and double: the arithmetic is the same, only the type differs.
template <class T>
__global__ void matmul_flat_kernel(const T* a, const T* b, T* c, int m, int n, int k) {
    const int col = blockIdx.x * blockDim.x + threadIdx.x;  // neighbouring threads: neighbouring columns
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= m || col >= n) return;
    T sum = 0;
    // A warp reads one element of A (the same for the 16 threads of a row: a broadcast) and 16
    // consecutive elements of a row of B (coalesced). Nothing is reused from one thread to
    // the next except through the caches: 2k loads for 2k flops.
    for (int p = 0; p < k; ++p) sum += a[row * k + p] * b[p * n + col];
    c[row * n + col] = sum;
}

template <class T>
void launch_flat(const T* a, const T* b, T* c, int m, int n, int k, cudaStream_t stream) {
    const dim3 block(kBlock, kBlock);
    const dim3 grid((n + kBlock - 1) / kBlock, (m + kBlock - 1) / kBlock);
    matmul_flat_kernel<T><<<grid, block, 0, stream>>>(a, b, c, m, n, k);
    CHECK_LAUNCH();
}

void matmul_flat(const float* a, const float* b, float* c, int m, int n, int k, cudaStream_t stream) {
    launch_flat(a, b, c, m, n, k, stream);
}
// handout:end flat

// handout:begin flat_double
void matmul_flat(const double* a, const double* b, double* c, int m, int n, int k, cudaStream_t stream) {
    launch_flat(a, b, c, m, n, k, stream);
}
// handout:end flat_double

// handout:begin struct
template <class T>
__device__ T get_element(const Matrix<T> mat, int row, int col) {
    return mat.elements[row * mat.stride + col];
}

template <class T>
__device__ void set_element(Matrix<T> mat, int row, int col, T value) {
    mat.elements[row * mat.stride + col] = value;
}

// The struct travels by value into the kernel (its pointer is a device pointer).
template <class T>
__global__ void matmul_struct_kernel(const Matrix<T> a, const Matrix<T> b, Matrix<T> c) {
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= c.height || col >= c.width) return;
    T sum = 0;
    for (int p = 0; p < a.width; ++p) sum += get_element(a, row, p) * get_element(b, p, col);
    set_element(c, row, col, sum);
}

template <class T>
void launch_struct(Matrix<T> a, Matrix<T> b, Matrix<T> c, cudaStream_t stream) {
    const dim3 block(kBlock, kBlock);
    const dim3 grid((c.width + kBlock - 1) / kBlock, (c.height + kBlock - 1) / kBlock);
    matmul_struct_kernel<T><<<grid, block, 0, stream>>>(a, b, c);
    CHECK_LAUNCH();
}

void matmul_struct(Matrix<float> a, Matrix<float> b, Matrix<float> c, cudaStream_t stream) {
    launch_struct(a, b, c, stream);
}
// handout:end struct

// handout:begin struct_double
void matmul_struct(Matrix<double> a, Matrix<double> b, Matrix<double> c, cudaStream_t stream) {
    launch_struct(a, b, c, stream);
}
// handout:end struct_double

// handout:begin uncoalesced
// The same arithmetic with the roles of x and y swapped: threadIdx.x now walks down a column
// of C. A warp then reads 16 elements of A that are k floats apart (16 memory segments per
// load instead of one) and writes 16 elements of C that are n floats apart.
__global__ void matmul_uncoalesced_kernel(const float* a, const float* b, float* c, int m, int n, int k) {
    const int row = blockIdx.x * blockDim.x + threadIdx.x;
    const int col = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= m || col >= n) return;
    float sum = 0;
    for (int p = 0; p < k; ++p) sum += a[row * k + p] * b[p * n + col];
    c[row * n + col] = sum;
}

void matmul_uncoalesced(const float* a, const float* b, float* c, int m, int n, int k,
                        cudaStream_t stream) {
    const dim3 block(kBlock, kBlock);
    const dim3 grid((m + kBlock - 1) / kBlock, (n + kBlock - 1) / kBlock);
    matmul_uncoalesced_kernel<<<grid, block, 0, stream>>>(a, b, c, m, n, k);
    CHECK_LAUNCH();
}
// handout:end uncoalesced
