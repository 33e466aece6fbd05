#include <doctest/doctest.h>

#include <vector>

#include "common/random.h"
#include "labs/13-matvec/reference.h"

namespace {
// BLAS sgemv as cuBLAS defines it, on a column-major m x n matrix with leading dimension lda:
// y = op(M) x, op = transpose or not. Used to check the orientation the lab's yardstick uses.
std::vector<double> blas_gemv(bool transpose, int m, int n, const float* M, int lda,
                              const float* x) {
    std::vector<double> y(transpose ? n : m, 0.0);
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < m; ++i) {
            const double mij = M[i + static_cast<size_t>(j) * lda];
            if (transpose) y[j] += mij * x[i];
            else y[i] += mij * x[j];
        }
    return y;
}
}  // namespace

TEST_CASE("lab 13 references: y = A x and y^T = x^T A on a 2 x 3 matrix") {
    const float A[] = {1, 2, 3,
                       4, 5, 6};
    const float x3[] = {1, -1, 2};
    const float x2[] = {2, -1};
    double y2[2], y3[3];
    matvec_reference(A, x3, y2, 2, 3);
    CHECK(y2[0] == 1 - 2 + 6);
    CHECK(y2[1] == 4 - 5 + 12);
    vecmat_reference(A, x2, y3, 2, 3);
    CHECK(y3[0] == 2 - 4);
    CHECK(y3[1] == 4 - 5);
    CHECK(y3[2] == 6 - 6);
}

TEST_CASE("lab 13 references: a single row, a single column") {
    const float a[] = {0.5f, -2, 4};
    const float x[] = {2, 0.25f, 1};
    const float one[] = {3};
    double y1[1], y3[3];
    matvec_reference(a, x, y1, 1, 3);  // 1 x 3 times 3: a dot product
    CHECK(y1[0] == doctest::Approx(1 - 0.5 + 4));
    matvec_reference(a, one, y3, 3, 1);  // 3 x 1 times 1: a scaled column
    CHECK(y3[2] == 12);
    vecmat_reference(a, one, y3, 1, 3);  // 1 times 1 x 3: a scaled row
    CHECK(y3[1] == -6);
}

TEST_CASE("lab 13 references: x^T A is A^T x") {
    const int rows = 5, cols = 7;
    std::vector<float> A(rows * cols), At(rows * cols), x(rows);
    cudalabs::fill_uniform(A.data(), A.size(), 1, 1);
    cudalabs::fill_uniform(x.data(), x.size(), 1, 2);
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c) At[c * rows + r] = A[r * cols + c];
    std::vector<double> a(cols), b(cols);
    vecmat_reference(A.data(), x.data(), a.data(), rows, cols);
    matvec_reference(At.data(), x.data(), b.data(), cols, rows);
    for (int c = 0; c < cols; ++c) CHECK(a[c] == doctest::Approx(b[c]).epsilon(1e-12));
}

TEST_CASE("lab 13 sizes: MxN is rows x columns, N is square, each at most 2^30") {
    cudalabs::Matrix m = matvec_size({3, 5});
    CHECK(m.rows == 3);
    CHECK(m.cols == 5);
    m = matvec_size({7});
    CHECK(m.rows == 7);
    CHECK(m.cols == 7);
    CHECK(matvec_size({1073741824, 1}).rows == 1073741824);
    CHECK_THROWS_WITH_AS(matvec_size({1, 2, 3}),
                         "size '1x2x3' does not fit this lab: expected MxN (rows x columns) or N (an N x N matrix)",
                         cudalabs::UsageError);
    CHECK_THROWS_WITH_AS(matvec_size({1073741825}),
                         "size '1073741825' is too large: rows and columns must be at most 1073741824", cudalabs::UsageError);
}

TEST_CASE("lab 13 cuBLAS orientation: row-major A handed to a column-major gemv") {
    const int rows = 3, cols = 5;  // not square, so a swapped m and n cannot pass
    std::vector<float> A(rows * cols), x_cols(cols), x_rows(rows);
    cudalabs::fill_uniform(A.data(), A.size(), 2, 1);
    cudalabs::fill_uniform(x_cols.data(), cols, 2, 2);
    cudalabs::fill_uniform(x_rows.data(), rows, 2, 3);

    ColumnMajorGemv g = gemv_for_row_major(false, rows, cols);  // y = A x
    CHECK(g.transpose);
    CHECK(g.m == cols);
    CHECK(g.n == rows);
    CHECK(g.lda == cols);
    CHECK(g.x_length == cols);
    CHECK(g.y_length == rows);
    std::vector<double> want(rows);
    matvec_reference(A.data(), x_cols.data(), want.data(), rows, cols);
    std::vector<double> got = blas_gemv(g.transpose, g.m, g.n, A.data(), g.lda, x_cols.data());
    REQUIRE(got.size() == want.size());
    for (int r = 0; r < rows; ++r) CHECK(got[r] == doctest::Approx(want[r]).epsilon(1e-12));

    g = gemv_for_row_major(true, rows, cols);  // y^T = x^T A
    CHECK_FALSE(g.transpose);
    CHECK(g.x_length == rows);
    CHECK(g.y_length == cols);
    want.assign(cols, 0);
    vecmat_reference(A.data(), x_rows.data(), want.data(), rows, cols);
    got = blas_gemv(g.transpose, g.m, g.n, A.data(), g.lda, x_rows.data());
    REQUIRE(got.size() == want.size());
    for (int c = 0; c < cols; ++c) CHECK(got[c] == doctest::Approx(want[c]).epsilon(1e-12));
}
