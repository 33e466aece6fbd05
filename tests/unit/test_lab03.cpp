#include <doctest/doctest.h>

#include <vector>

#include "labs/03-pitched-3d/reference.h"

TEST_CASE("lab 03 volume offsets use the slice pitch = pitch * height") {
    CHECK(volume_offset(0, 0, 0, 512, 10, 4) == 0);
    CHECK(volume_offset(0, 0, 3, 512, 10, 4) == 12);
    CHECK(volume_offset(0, 2, 3, 512, 10, 4) == 2 * 512 + 12);
    CHECK(volume_offset(4, 2, 3, 512, 10, 4) == 4 * 5120 + 2 * 512 + 12);
    // depth 1: the slice pitch never matters.
    CHECK(volume_offset(0, 9, 0, 512, 10, 4) == 9 * 512);
}

TEST_CASE("lab 03 clamps indices to the volume") {
    CHECK(clamp_index(-1, 5) == 0);
    CHECK(clamp_index(0, 5) == 0);
    CHECK(clamp_index(4, 5) == 4);
    CHECK(clamp_index(5, 5) == 4);
    CHECK(clamp_index(3, 1) == 0);
}

TEST_CASE("lab 03 stencil: a constant volume stays constant, one element is its own neighbour") {
    std::vector<float> in(3 * 4 * 5, 2.0f), out(in.size());
    stencil7_reference(in.data(), out.data(), 5, 4, 3, 0.4f, 0.1f);
    for (float v : out) CHECK(v == doctest::Approx(2.0f).epsilon(1e-6));
    float one = 3.0f, res = 0;
    stencil7_reference(&one, &res, 1, 1, 1, 0.4f, 0.1f);
    CHECK(res == doctest::Approx(3.0f).epsilon(1e-6));  // 0.4 * 3 + 0.1 * 6 * 3
}

TEST_CASE("lab 03 stencil sums the six neighbours of an interior point") {
    // 3x3x3 volume, all zero except the centre's six neighbours (1 each) and the centre (10).
    std::vector<float> in(27, 0.0f), out(27);
    auto at = [](int z, int y, int x) { return (z * 3 + y) * 3 + x; };
    in[at(1, 1, 1)] = 10;
    in[at(1, 1, 0)] = in[at(1, 1, 2)] = in[at(1, 0, 1)] = in[at(1, 2, 1)] = in[at(0, 1, 1)] = in[at(2, 1, 1)] = 1;
    stencil7_reference(in.data(), out.data(), 3, 3, 3, 0.4f, 0.1f);
    CHECK(out[at(1, 1, 1)] == doctest::Approx(0.4 * 10 + 0.1 * 6).epsilon(1e-6));
    // A corner: its clamped neighbours are itself (3 times) and three zeros.
    CHECK(out[at(0, 0, 0)] == 0.0f);
}

TEST_CASE("lab 03 finds writes into the row padding of every row of every slice") {
    std::vector<unsigned char> data(8 * 6, 0xFF);  // 6 rows (height 3 x depth 2) of pitch 8
    CHECK(written_padding_bytes_3d(data.data(), 4, 8, 6, 0xFF) == 0);
    data[5 * 8 + 4] = 1;
    CHECK(written_padding_bytes_3d(data.data(), 4, 8, 6, 0xFF) == 1);
}

TEST_CASE("lab 03 scale reference") {
    const float in[] = {1.0f, -4.0f, 0.5f};
    float out[3];
    scale_reference(in, out, 3, 0.75f);
    CHECK(out[0] == 0.75f);
    CHECK(out[1] == -3.0f);
    CHECK(out[2] == 0.375f);
}
