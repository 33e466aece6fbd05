#include <doctest/doctest.h>

#include <stdexcept>
#include <vector>

#include "common/random.h"
#include "common/stats.h"

using namespace cudalabs;

TEST_CASE("summarize gives the median of odd and even samples") {
    TimingStats s = summarize({5, 1, 3});
    CHECK(s.median == 3);
    CHECK(s.min == 1);
    CHECK(s.max == 5);
    CHECK(s.mean == 3);
    CHECK(s.stddev == doctest::Approx(2.0));
    CHECK(summarize({4, 1, 3, 2}).median == 2.5);
    CHECK(summarize({7}).stddev == 0);
    CHECK_THROWS_AS(summarize({}), std::invalid_argument);
}

TEST_CASE("random inputs depend only on seed, stream and index") {
    std::vector<float> a(1000), b(1000);
    fill_uniform(a.data(), a.size(), 42, 1);
    fill_uniform(b.data(), b.size(), 42, 1);
    CHECK(a == b);
    CHECK(random_uniform(42, 1, 500) == a[500]);
    fill_uniform(b.data(), b.size(), 42, 2);
    CHECK(a != b);
    fill_uniform(b.data(), b.size(), 43, 1);
    CHECK(a != b);
    double sum = 0;
    for (float v : a) {
        CHECK(v >= -1.0f);
        CHECK(v < 1.0f);
        sum += v;
    }
    CHECK(sum / a.size() == doctest::Approx(0.0).epsilon(0.1));
    CHECK(random_uniform(1, 1, 3, 2.0f, 3.0f) >= 2.0f);
}
