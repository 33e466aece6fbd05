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
