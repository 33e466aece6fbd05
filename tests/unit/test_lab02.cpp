#include <doctest/doctest.h>

#include <vector>

#include "labs/02-pitched-2d/reference.h"

TEST_CASE("lab 02 reference computes alpha * a + b rounded once") {
    const float a[] = {1.0f, -2.0f, 0.1f, 0.0f};
    const float b[] = {0.5f, 3.0f, 0.2f, -7.0f};
    float c[4] = {};
    add_scaled_reference(a, b, c, 4, 1.5f);
    CHECK(c[0] == 2.0f);
    CHECK(c[1] == 0.0f);
    CHECK(c[2] == static_cast<float>(1.5 * static_cast<double>(0.1f) + static_cast<double>(0.2f)));
    CHECK(c[3] == -7.0f);
}

TEST_CASE("lab 02 pitch arithmetic: rows are pitch bytes apart, elements elem_size apart") {
    CHECK(pitched_offset(0, 0, 512, 4) == 0);
    CHECK(pitched_offset(0, 5, 512, 4) == 20);
    CHECK(pitched_offset(3, 0, 512, 4) == 1536);
    CHECK(pitched_offset(3, 7, 512, 8) == 3 * 512 + 56);
    // A packed array is the case pitch = width * elem_size.
    CHECK(pitched_offset(2, 1, 10 * 4, 4) == (2 * 10 + 1) * 4);
    CHECK(round_up(1, 512) == 512);
    CHECK(round_up(512, 512) == 512);
    CHECK(round_up(516, 512) == 1024);
    CHECK(round_up(0, 32) == 0);
    CHECK(padding_bytes(516, 1024, 1) == 508);
    CHECK(padding_bytes(400, 512, 3) == 336);
    CHECK(padding_bytes(512, 512, 9) == 0);
}

TEST_CASE("lab 02 finds bytes written into the row padding") {
    const size_t width_bytes = 12, pitch = 16, height = 3;
    std::vector<unsigned char> rows(pitch * height, 0xFF);
    for (size_t r = 0; r < height; ++r)
        for (size_t b = 0; b < width_bytes; ++b) rows[r * pitch + b] = 0;  // the elements
    CHECK(written_padding_bytes(rows.data(), width_bytes, pitch, height, 0xFF) == 0);
    rows[1 * pitch + 12] = 7;  // row 1, first padding byte
    rows[2 * pitch + 15] = 0;  // row 2, last padding byte
    CHECK(written_padding_bytes(rows.data(), width_bytes, pitch, height, 0xFF) == 2);
    // No padding at all: nothing to find.
    CHECK(written_padding_bytes(rows.data(), pitch, pitch, height, 0xFF) == 0);
}
