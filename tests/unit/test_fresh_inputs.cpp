// The host half of fresh inputs (grading/protocol/fresh_inputs.h): keys, sampled elements and the
// comparison of a program's samples with the reference's.
#include <doctest/doctest.h>

#include <set>
#include <vector>

#include "grading/protocol/fresh_inputs.h"

using namespace cudalabs;

TEST_CASE("fresh inputs: every repetition and case has its own key, never 0") {
    std::set<uint64_t> keys;
    for (int rep = 0; rep < 50; ++rep) {
        keys.insert(repetition_key(7, "fast_4096", rep));
        keys.insert(repetition_key(7, "fast_4097", rep));
        keys.insert(repetition_key(8, "fast_4096", rep));
    }
    CHECK(keys.size() == 150);
    CHECK(keys.count(0) == 0);
    CHECK(repetition_key(7, "fast_4096", 3) == repetition_key(7, "fast_4096", 3));  // the verifier's match
}

TEST_CASE("fresh inputs: small outputs are sampled whole, large ones at keyed places") {
    const std::vector<size_t> all = sample_positions(5, 0, 1000);
    REQUIRE(all.size() == 1000);
    for (size_t i = 0; i < all.size(); ++i) CHECK(all[i] == i);

    const size_t count = 100 * kFreshSamples;
    const std::vector<size_t> some = sample_positions(5, 0, count);
    REQUIRE(some.size() == kFreshSamples);
    size_t low = 0;
    for (size_t at : some) {
        CHECK(at < count);
        low += at < count / 2;
    }
    CHECK(low > kFreshSamples * 45 / 100);  // spread over the whole output
    CHECK(low < kFreshSamples * 55 / 100);
    CHECK(sample_positions(5, 0, count) == some);
    CHECK(sample_positions(6, 0, count) != some);  // another key, other places
    CHECK(sample_positions(5, 1, count) != some);  // another output, other places
}

TEST_CASE("fresh inputs: elements known by kind and size are compared as their type, others bit for bit") {
    const std::vector<size_t> at = {0, 1};
    const Tolerance tol = Tolerance::elementwise(kFloatRoundoff);
    const std::vector<float> f = {1.0f, 2.0f}, f_off = {1.0f, 2.0000002f}, f_wrong = {1.0f, -2.0f};
    CHECK(compare_sample_bytes(ElementKind::Float32, 4, f_off.data(), f.data(), at, tol) == SampleVerdict::Agree);
    CHECK(compare_sample_bytes(ElementKind::Float32, 4, f_wrong.data(), f.data(), at, tol) == SampleVerdict::Wrong);
    const std::vector<unsigned> u = {7, 9}, u_wrong = {7, 8};
    CHECK(compare_sample_bytes(ElementKind::UInt32, 4, u_wrong.data(), u.data(), at, tol) == SampleVerdict::Wrong);
    struct Pair { short a, b; };
    const std::vector<Pair> p = {{1, 2}, {3, 4}}, p_off = {{1, 2}, {3, 5}};
    std::vector<Pair> p_unwritten = p;
    poison_fill(&p_unwritten[1], 1);
    CHECK(compare_sample_bytes(ElementKind::Other, sizeof(Pair), p.data(), p.data(), at, tol) == SampleVerdict::Agree);
    CHECK(compare_sample_bytes(ElementKind::Other, sizeof(Pair), p_off.data(), p.data(), at, tol) == SampleVerdict::Wrong);
    CHECK(compare_sample_bytes(ElementKind::Other, sizeof(Pair), p_unwritten.data(), p.data(), at, tol) == SampleVerdict::Unwritten);
    CHECK(element_kind<float>() == ElementKind::Float32);
    CHECK(element_kind<double>() == ElementKind::Float64);
    CHECK(element_kind<Pair>() == ElementKind::Other);
}

TEST_CASE("fresh inputs: samples are judged within twice the tolerance, against the sample's scale") {
    const Tolerance tol = Tolerance::elementwise(kFloatRoundoff);
    const std::vector<size_t> at = {0, 1, 2};
    const std::vector<float> reference = {1.0f, -2.0f, 1e-7f};
    SUBCASE("a result rounded differently passes, also where terms cancelled") {
        const std::vector<float> got = {1.0f, -2.0f, 2e-7f};  // off by 1e-7 where the scale is 2
        CHECK(compare_samples(got.data(), reference.data(), at, tol) == SampleVerdict::Agree);
    }
    SUBCASE("a stale result fails, naming the element") {
        const std::vector<float> got = {1.0f, 2.0f, 1e-7f};  // the sign of a replayed repetition
        std::string why;
        CHECK(compare_samples(got.data(), reference.data(), at, tol, &why) == SampleVerdict::Wrong);
        CHECK(why.find("element [1]") != std::string::npos);
    }
    SUBCASE("an element never written fails") {
        std::vector<float> got = reference;
        poison_fill(&got[2], 1);
        std::string why;
        CHECK(compare_samples(got.data(), reference.data(), at, tol, &why) == SampleVerdict::Unwritten);
        CHECK(why.find("element [2] was never written") != std::string::npos);
    }
    SUBCASE("a NaN fails") {
        std::vector<float> got = reference;
        got[0] = std::nanf("");
        std::string why;
        CHECK(compare_samples(got.data(), reference.data(), at, tol, &why) == SampleVerdict::Wrong);
        CHECK(why.find("element [0]") != std::string::npos);
    }
}
