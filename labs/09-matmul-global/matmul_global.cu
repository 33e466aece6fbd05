// Lab 09 -- matrix product from global memory. Your work goes in this file: complete every
// TODO(lab09).
// Build and run:   make lab09 && ./lab09          (one variant: ./lab09 --variant flat)
// The driver checks every variant (square, non-square, 1 x 1, primes) against a CPU reference
// or, for large sizes, against cuBLAS, and reports GFLOP/s = 2*m*n*k / time as a ratio to
// cublasSgemm at the same size.
//
// All matrices are row-major: A is m x k, B is k x n, C = A * B is m x n.
// C[row][col] = sum over p of A[row][p] * B[p][col].
#include "matmul_global.h"

constexpr int kBlock = 16;  // 16 x 16 threads per block, one element of C each

// ---------------------------------------------------------------------------------------------
// Part 1: flat index arithmetic. One thread per element of C; threadIdx.x picks the column, so
// the 16 threads of a row of the block read 16 consecutive elements of a row of B.

// handout:begin flat
// One template for float and double: the arithmetic is the same, only the type differs.
template <class T>
__global__ void matmul_flat_kernel(const T* a, const T* b, T* c, int m, int n, int k) {
    // TODO(lab09) flat (about 8 lines): col from blockIdx.x/threadIdx.x, row from blockIdx.y/threadIdx.y; a
    // thread outside C returns; otherwise sum a[row * k + p] * b[p * n + col] over p in a T
    // and store it in c[row * n + col].
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
    // TODO(lab09) flat_double (about 1 line): the same launch in double (launch_flat does it for any T).
    // Compare the two rows of the table: how much does double cost on this GPU?
}
// handout:end flat_double

// ---------------------------------------------------------------------------------------------
// Part 2: the same product on Matrix structs, through accessors (the CUDA Programming Guide's
// style). The struct is passed by value; its `elements` pointer is a device pointer.

// handout:begin struct
template <class T>
__device__ T get_element(const Matrix<T> mat, int row, int col) {
    // TODO(lab09) struct (about 1 line): return the element at (row, col): mind the stride.
    return T(0);
}

template <class T>
__device__ void set_element(Matrix<T> mat, int row, int col, T value) {
    // TODO(lab09) struct (about 1 line): store value at (row, col).
}

template <class T>
__global__ void matmul_struct_kernel(const Matrix<T> a, const Matrix<T> b, Matrix<T> c) {
    // TODO(lab09) struct (about 8 lines): as matmul_flat_kernel, with c.height rows, c.width columns and
    // a.width terms, reading with get_element and writing with set_element.
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
    // TODO(lab09) struct_double (about 1 line): launch the struct kernel in double.
}
// handout:end struct_double

// ---------------------------------------------------------------------------------------------
// Part 3: what coalescing is worth. Write the same product with threadIdx.x running down a
// column of C (row from x, column from y). Predict the slowdown before you measure it.

// handout:begin uncoalesced
__global__ void matmul_uncoalesced_kernel(const float* a, const float* b, float* c, int m, int n, int k) {
    // TODO(lab09) uncoalesced (about 8 lines): row = blockIdx.x * blockDim.x + threadIdx.x, col from the y
    // indices; then the same guard, sum and store as the flat kernel.
}

void matmul_uncoalesced(const float* a, const float* b, float* c, int m, int n, int k,
                        cudaStream_t stream) {
    const dim3 block(kBlock, kBlock);
    const dim3 grid((m + kBlock - 1) / kBlock, (n + kBlock - 1) / kBlock);  // x covers the rows
    matmul_uncoalesced_kernel<<<grid, block, 0, stream>>>(a, b, c, m, n, k);
    CHECK_LAUNCH();
}
// handout:end uncoalesced
