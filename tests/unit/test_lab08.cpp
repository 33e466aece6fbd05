#include <doctest/doctest.h>

#include <vector>

#include "labs/08-transpose/reference.h"

TEST_CASE("lab 08 reference transposes a non-square matrix") {
    // 2 x 3 -> 3 x 2
    const float in[] = {1, 2, 3, 4, 5, 6};
    float out[6] = {};
    transpose_reference(in, out, 2, 3);
    const float want[] = {1, 4, 2, 5, 3, 6};
    for (int i = 0; i < 6; ++i) CHECK(out[i] == want[i]);
}

TEST_CASE("lab 08 reference: transposing twice gives the input back; 1 x N is a copy") {
    const size_t rows = 7, cols = 13;
    std::vector<float> in(rows * cols), once(rows * cols), twice(rows * cols);
    for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>(i) * 0.5f;
    transpose_reference(in.data(), once.data(), rows, cols);
    CHECK(once[1] == in[cols]);  // out[0][1] = in[1][0]
    transpose_reference(once.data(), twice.data(), cols, rows);
    CHECK(twice == in);
    std::vector<float> row(cols), col(cols);
    for (size_t i = 0; i < cols; ++i) row[i] = static_cast<float>(i);
    transpose_reference(row.data(), col.data(), 1, cols);
    CHECK(col == row);
}

TEST_CASE("lab 08 sizes: N is square, RxC is rows x columns, within int indices and the grid's rows") {
    using cudalabs::UsageError;
    cudalabs::Matrix m = transpose_size({5}, 524280);
    CHECK(m.rows == 5);
    CHECK(m.cols == 5);
    m = transpose_size({4097, 260}, 524280);
    CHECK(m.rows == 4097);
    CHECK(m.cols == 260);
    CHECK(transpose_size({524280, 4096}, 524280).rows == 524280);  // 2^31 - 2^19 elements
    CHECK_THROWS_WITH_AS(transpose_size({1, 2, 3}, 524280), "size '1x2x3' does not fit this lab: expected N or RxC", UsageError);
    CHECK_THROWS_WITH_AS(transpose_size({46341}, 524280),
                         "size '46341' is too large: at most 2147483647 elements (the kernels index with int)", UsageError);
    // An extent far past int: refused, not wrapped around into a small product.
    CHECK_THROWS_AS(transpose_size({4, 4611686018427387904LL}, 524280), UsageError);
    CHECK_THROWS_WITH_AS(transpose_size({524281, 1}, 524280),
                         "size '524281x1' has too many rows: at most 524280 (the grid's y limit)", UsageError);
}
