// Lab 13's CPU reference and host helpers. Host-only: unit-tested with g++.
#pragma once
#include <cstddef>

#include "shape.h"

// Rows and columns: int indices with room to spare.
constexpr long long kMaxMatvecExtent = 1LL << 30;

// A size of the lab: "MxN" is a matrix of M rows and N columns, "N" an N x N one. Throws
// UsageError.
inline cudalabs::Matrix matvec_size(const cudalabs::Dims& d) {
    const cudalabs::Matrix m = cudalabs::Matrix::parse(d, "MxN (rows x columns) or N (an N x N matrix)");
    cudalabs::require_at_most(d, kMaxMatvecExtent, "rows and columns must be at most 1073741824");
    return m;
}

// y = A x in double: A is rows x cols, row-major; x has cols elements, y has rows.
// Double accumulation makes the reference far more accurate than any float kernel, so the
// check's tolerance measures only the kernel's own rounding.
inline void matvec_reference(const float* A, const float* x, double* y, size_t rows, size_t cols) {
    for (size_t r = 0; r < rows; ++r) {
        const float* row = A + r * cols;
        double sum = 0;
        for (size_t c = 0; c < cols; ++c) sum += static_cast<double>(row[c]) * x[c];
        y[r] = sum;
    }
}

// y^T = x^T A in double: x has rows elements, y has cols. Walks A row by row (the order it is
// stored in), adding x[r] times row r into y.
inline void vecmat_reference(const float* A, const float* x, double* y, size_t rows, size_t cols) {
    for (size_t c = 0; c < cols; ++c) y[c] = 0;
    for (size_t r = 0; r < rows; ++r) {
        const float* row = A + r * cols;
        const double xr = x[r];
        for (size_t c = 0; c < cols; ++c) y[c] += xr * row[c];
    }
}

// cuBLAS is column-major. A row-major rows x cols matrix, read as column-major with leading
// dimension cols, is its transpose: a cols x rows matrix At. So
//   y = A x      is  y = At^T x  -> cublasSgemv(CUBLAS_OP_T, m = cols, n = rows, lda = cols)
//   y^T = x^T A  is  y = At x    -> cublasSgemv(CUBLAS_OP_N, m = cols, n = rows, lda = cols)
// (cuBLAS's m and n are always the stored matrix's rows and columns, whatever the operation.)
struct ColumnMajorGemv {
    bool transpose;  // CUBLAS_OP_T when true, CUBLAS_OP_N when false
    int m, n, lda;   // the column-major matrix: m rows, n columns, leading dimension lda
    int x_length, y_length;
};

inline ColumnMajorGemv gemv_for_row_major(bool vector_times_matrix, int rows, int cols) {
    ColumnMajorGemv g;
    g.transpose = !vector_times_matrix;
    g.m = cols;
    g.n = rows;
    g.lda = cols;
    // op(At) is n x m for OP_T (x has m elements) and m x n for OP_N (x has n elements).
    g.x_length = g.transpose ? g.m : g.n;
    g.y_length = g.transpose ? g.n : g.m;
    return g;
}
