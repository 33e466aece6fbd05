// The rule of a graded host round trip (grading/harness/round_trip.h): the result is what the code
// copied back from the device, and what it copied to the device is its inputs, unchanged.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "grading/harness/round_trip.h"

using namespace cudalabs;

namespace {

// lab 01's round trip at n elements: a and b in, c out (poisoned, as the driver leaves it).
struct Arrays {
    std::vector<float> a, b, c;
    explicit Arrays(size_t n) : a(n, 1.5f), b(n, 2.0f), c(n, -7.0f) {
        for (size_t i = 0; i < n; ++i) a[i] += static_cast<float>(i);
    }
    size_t bytes() const { return a.size() * sizeof(float); }
    RoundTripLedger ledger() const { return RoundTripLedger({{a.data(), bytes()}, {b.data(), bytes()}}, {c.data(), bytes()}); }
};

// What the device would hand back: a + b.
std::vector<float> sum(const Arrays& x) {
    std::vector<float> s(x.a.size());
    for (size_t i = 0; i < s.size(); ++i) s[i] = x.a[i] + x.b[i];
    return s;
}

std::string all(const std::vector<RoundTripLedger::Breach>& breaches) {
    std::string text;
    for (const auto& b : breaches) text += b.what + "\n";
    return text;
}

}  // namespace

TEST_CASE("round trip: inputs copied in, the result copied back, nothing else: no breach") {
    Arrays x(1000);
    RoundTripLedger l = x.ledger();
    l.upload("cudaMemcpy", x.a.data(), x.bytes());
    l.upload("cudaMemcpyAsync", x.b.data() + 10, 40);  // in pieces too
    l.upload("cudaMemcpyAsync", x.b.data(), x.bytes());
    const std::vector<float> result = sum(x);
    std::copy(result.begin(), result.end(), x.c.begin());  // the copy back lands (the shim tells the ledger after it)
    l.download("cudaMemcpy", x.c.data(), x.bytes() / 2);
    l.download("cudaMemcpy", x.c.data() + 500, x.bytes() / 2);
    CHECK(l.finish().empty());
}

TEST_CASE("round trip: a result the CPU wrote into the output is not a copy back") {
    Arrays x(257);
    RoundTripLedger l = x.ledger();
    l.upload("cudaMemcpy", x.a.data(), x.bytes());
    l.upload("cudaMemcpy", x.b.data(), x.bytes());
    const std::vector<float> on_cpu = sum(x);
    std::copy(on_cpu.begin(), on_cpu.end(), x.c.begin());  // computed on the CPU, written straight into c
    const auto breaches = l.finish();
    INFO(all(breaches));
    REQUIRE(breaches.size() == 1);
    CHECK(breaches[0].what.find("bytes of the output (the first at byte ") != std::string::npos);
    CHECK(breaches[0].what.find("are not what the code copied back from the device") != std::string::npos);
    CHECK(breaches[0].bytes > 0);

    // One element patched by the CPU after an honest copy back.
    Arrays y(100);
    RoundTripLedger m = y.ledger();
    const std::vector<float> landed = sum(y);
    std::copy(landed.begin(), landed.end(), y.c.begin());  // where the copy back put it
    m.download("cudaMemcpy", y.c.data(), y.bytes());
    y.c[37] += 1.0f;
    const auto patched = m.finish();
    INFO(all(patched));
    REQUIRE(patched.size() == 1);
    const std::string& what = patched[0].what;
    const size_t byte = std::stoul(what.substr(what.find("at byte ") + 8));
    CHECK(byte / sizeof(float) == 37);  // a byte of the element the CPU changed
}

TEST_CASE("round trip: only the inputs' own bytes go to the device") {
    Arrays x(64);
    const std::vector<float> cpu_result = sum(x);
    RoundTripLedger l = x.ledger();
    l.upload("cudaMemcpy", cpu_result.data(), x.bytes());  // the CPU's result, handed to a kernel to pass along
    auto breaches = l.finish();
    INFO(all(breaches));
    CHECK(all(breaches).find("cudaMemcpy copied to the device host memory that is no input of the call") != std::string::npos);

    Arrays y(64);
    RoundTripLedger m = y.ledger();
    const std::vector<float> result = sum(y);
    std::copy(result.begin(), result.end(), y.a.begin());  // the result smuggled through an input
    m.upload("cudaMemcpy", y.a.data(), y.bytes());
    CHECK(all(m.finish()).find("input bytes that the code had changed") != std::string::npos);

    Arrays z(64);
    RoundTripLedger n = z.ledger();
    n.upload("cudaMemcpy", z.a.data() + 60, 5 * sizeof(float));  // runs past the end of a
    CHECK(all(n.finish()).find("no input of the call") != std::string::npos);
}

TEST_CASE("round trip: copies back land only in the output; memory both sides reach is refused") {
    Arrays x(16);
    RoundTripLedger l = x.ledger();
    std::vector<float> elsewhere(16);
    l.download("cudaMemcpy", elsewhere.data(), x.bytes());  // the inputs back on the CPU, to add there
    l.shared_memory("cudaMallocManaged");
    l.shared_memory("cudaMallocManaged");  // said once
    const auto breaches = l.finish();
    INFO(all(breaches));
    CHECK(all(breaches).find("into host memory that is not the call's output") != std::string::npos);
    CHECK(all(breaches).find("cudaMallocManaged allocated memory that the CPU and the GPU share") != std::string::npos);
    // c, never copied back, still holds its poison, as its shadow does: a wrong result, which the
    // check finds; no breach of its own.
    CHECK(breaches.size() == 2);
}
