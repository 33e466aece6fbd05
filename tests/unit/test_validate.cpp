#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "common/random.h"
#include "common/validate.h"

using namespace cudalabs;

TEST_CASE("poison is every byte 0xFF and reads as NaN") {
    std::vector<float> f(4, 1.0f);
    std::vector<double> d(2, 1.0);
    poison_fill(f.data(), f.size());
    poison_fill(d.data(), d.size());
    CHECK(is_poison(f[0]));
    CHECK(std::isnan(f[3]));
    CHECK(is_poison(d[1]));
    CHECK_FALSE(is_poison(1.0f));
    CHECK_FALSE(is_poison(std::numeric_limits<float>::quiet_NaN()));  // a NaN the kernel wrote
}

TEST_CASE("check_values passes equal data and counts unwritten, wrong and non-finite elements") {
    std::vector<float> expected = {1, 2, 3, 4, 5, 6};
    std::vector<float> got = expected;
    Tolerance tol = Tolerance::elementwise(kFloatRoundoff);
    CHECK(check_values(got.data(), expected.data(), got.size(), tol).ok());

    poison_fill(&got[2], 2);
    got[5] = 7;
    CheckResult r = check_values(got.data(), expected.data(), got.size(), tol);
    CHECK_FALSE(r.ok());
    CHECK(r.unwritten == 2);
    CHECK(r.first_unwritten == 2);
    CHECK(r.mismatches == 1);
    CHECK(r.worst.index == 5);
    CHECK(r.worst.got == 7);
    CHECK(r.worst.expected == 6);

    got = expected;
    got[1] = std::numeric_limits<float>::quiet_NaN();
    got[4] = std::numeric_limits<float>::infinity();
    r = check_values(got.data(), expected.data(), got.size(), tol);
    CHECK(r.nonfinite == 2);
    CHECK(r.mismatches == 2);
    CHECK(r.first.size() == 2);
    CHECK(r.first[0].index == 1);

    std::vector<float> never(6);
    poison_fill(never.data(), never.size());
    CHECK(check_values(never.data(), expected.data(), 6, tol).never_written());
    CHECK_FALSE(check_values(never.data(), expected.data(), 0, tol).ok());  // nothing checked
}

TEST_CASE("the tolerance is |got - expected| <= abs + rel * |expected|") {
    Tolerance tol{0.5, 0.1};
    double expected[] = {10.0, 10.0};
    double inside[] = {11.49, 8.51};
    double outside[] = {11.51, 10.0};
    CHECK(check_values(inside, expected, 2, tol).ok());
    CheckResult r = check_values(outside, expected, 2, tol);
    CHECK(r.mismatches == 1);
    CHECK(r.max_abs_error == doctest::Approx(1.51));
}

TEST_CASE("accumulation tolerance accepts float rounding of a long sum but not a real error") {
    const size_t terms = 4096;
    std::vector<float> a(terms), b(terms);
    fill_uniform(a.data(), terms, 7, 1);
    fill_uniform(b.data(), terms, 7, 2);
    double exact = 0;
    float forward = 0, backward = 0;
    for (size_t i = 0; i < terms; ++i) {
        exact += static_cast<double>(a[i]) * b[i];
        forward += a[i] * b[i];
        backward += a[terms - 1 - i] * b[terms - 1 - i];
    }
    Tolerance tol = Tolerance::accumulation(terms, kFloatRoundoff, 1.0 / 3.0);
    CHECK(check_values(&forward, &exact, 1, tol).ok());
    CHECK(check_values(&backward, &exact, 1, tol).ok());
    float missing_term = forward - a[17] * b[17];  // a loop that skipped one element
    float wrong = forward + 0.05f;
    CHECK_FALSE(check_values(&wrong, &exact, 1, tol).ok());
    if (std::fabs(a[17] * b[17]) > 0.05) CHECK_FALSE(check_values(&missing_term, &exact, 1, tol).ok());
}

TEST_CASE("indices and failures are described for people") {
    CHECK(format_index(12, {}) == "[12]");
    CHECK(format_index(7, {3, 5}) == "[1,2]");
    CHECK(format_index(23, {2, 3, 4}) == "[1,2,3]");

    std::vector<float> expected(6, 1.0f), got(6, 1.0f);
    got[4] = 2.0f;
    std::string msg = describe_failure(check_values(got.data(), expected.data(), 6,
                                                    Tolerance::elementwise(kFloatRoundoff)),
                                       {2, 3});
    CHECK(msg.find("1 wrong") != std::string::npos);
    CHECK(msg.find("[1,1]") != std::string::npos);
    CHECK(msg.find("got 2") != std::string::npos);
    CHECK(msg.find("expected 1") != std::string::npos);

    poison_fill(got.data(), 6);
    CHECK(describe_failure(check_values(got.data(), expected.data(), 6, Tolerance{})) ==
          "output never written");
    got[0] = 1.0f;
    CHECK(describe_failure(check_values(got.data(), expected.data(), 6, Tolerance{}))
              .find("5 of 6 outputs never written (first at [1])") != std::string::npos);
    CHECK(describe_failure(check_values(expected.data(), expected.data(), 6, Tolerance{})).empty());
}

TEST_CASE("content_hash tells changed buffers apart") {
    std::vector<float> a(1001);
    for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>(i) * 0.5f;
    const uint64_t h = content_hash(a.data(), a.size() * sizeof(float));
    CHECK(h == content_hash(a.data(), a.size() * sizeof(float)));  // the same bytes, the same hash
    std::vector<float> b = a;
    b[500] = -b[500];
    CHECK(content_hash(b.data(), b.size() * sizeof(float)) != h);
    b = a;
    b.back() = 1e9f;  // in the tail that is not a whole 8-byte word
    CHECK(content_hash(b.data(), b.size() * sizeof(float)) != h);
    // Zeros still count: buffers that differ only in length differ.
    std::vector<unsigned char> zeros(24, 0);
    CHECK(content_hash(zeros.data(), 16) != content_hash(zeros.data(), 24));
    CHECK(content_hash(zeros.data(), 0) != content_hash(zeros.data(), 1));
    // Swapping two words changes the hash (the order matters).
    std::vector<uint64_t> w = {1, 2}, v = {2, 1};
    CHECK(content_hash(w.data(), 16) != content_hash(v.data(), 16));
}

TEST_CASE("inspect_guard finds changed bytes and the one nearest the elements") {
    std::vector<unsigned char> zone(kGuardBytes, kGuardByte);
    GuardDamage d = inspect_guard(zone.data(), true);
    CHECK(d.changed == 0);
    zone[0] = 0;  // the byte right after the last element
    zone[9] = 1;
    d = inspect_guard(zone.data(), true);
    CHECK(d.changed == 2);
    CHECK(d.nearest == 1);
    std::string m = guard_fault_message(d, true, 1000, 4);
    CHECK(m.find("out-of-bounds write: 2 bytes changed just after the last element (index 1000)") == 0);
    CHECK(m.find("1000-element buffer") != std::string::npos);

    std::vector<unsigned char> before(kGuardBytes, kGuardByte);
    before[kGuardBytes - 5] = 7;  // 5 bytes before the first element: element -2 of floats
    d = inspect_guard(before.data(), false);
    CHECK(d.changed == 1);
    CHECK(d.nearest == 5);
    m = guard_fault_message(d, false, 10, 4);
    CHECK(m.find("1 byte changed just before the first element (index -2)") != std::string::npos);
    CHECK(input_fault_message(64, 8).find("64 elements of 8 bytes") != std::string::npos);
}

TEST_CASE("a guard zone after the elements may be longer than kGuardBytes: every byte of it is checked") {
    // A 10-float buffer's zone after it: kGuardBytes and the 216 bytes that pad the elements to 256.
    const size_t length = kGuardBytes + 256 - 40;
    std::vector<unsigned char> zone(length, kGuardByte);
    CHECK(inspect_guard(zone.data(), true, length).changed == 0);
    zone[length - 1] = 3;  // the zone's last byte, where the mapping ends
    GuardDamage d = inspect_guard(zone.data(), true, length);
    CHECK(d.changed == 1);
    CHECK(d.nearest == length);
    CHECK(guard_fault_message(d, true, 10, 4).find("index " + std::to_string(9 + length / 4)) != std::string::npos);
}
