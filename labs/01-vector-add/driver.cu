// Lab 01 driver: owns main(), the data, the check and the timing. Do not edit: your work goes in
// vector_add.cu. The same driver builds the starter (./lab01), the solution (./sol01) and the
// grader's build, so the check cannot be edited away.
#include <climits>
#include <functional>
#include <vector>

#include "main.h"
#include "reference.h"
#include "vector_add.h"

using namespace cudalabs;

namespace {

// The inputs of one size and the sum they must give, in pages of their own (host_array.h): while
// the host round trip runs, the grader keeps them from the CPU.
struct Vectors {
    int n = 0;
    HostArray<float> a, b, expected;
};

Vectors vectors_for(const Length& len, RunContext& ctx) {
    Vectors v;
    v.n = static_cast<int>(len.n);
    v.a = HostArray<float>(v.n);
    v.b = HostArray<float>(v.n);
    v.expected = HostArray<float>(v.n);
    fill_uniform(v.a.data(), v.n, ctx.seed(), 1);
    fill_uniform(v.b.data(), v.n, ctx.seed(), 2);
    vector_add_reference(v.a.data(), v.b.data(), v.expected.data(), v.n);
    return v;
}

// One correctly rounded addition on both sides.
const Tolerance kTolerance = Tolerance::elementwise(kFloatRoundoff);

Outcome run_host(const Length& len, RunContext& ctx) {
    const Vectors v = vectors_for(len, ctx);
    std::vector<float> c(v.n);
    poison_fill(c.data(), v.n);
    Outcome out;
    const size_t bytes = sizeof(float) * v.n;
    ctx.run_round_trip(
        out, {v.a.span(), v.b.span()}, {c.data(), bytes}, [&] { vector_add_host(v.a.data(), v.b.data(), c.data(), v.n); },
        [&] { ctx.check(out, c.data(), v.expected.data(), v.n, kTolerance); }, {v.expected.span()});
    out.note = "time includes allocation, both copies and free";
    return out;
}

using Launcher = void (*)(const float* a, const float* b, float* c, int n, cudaStream_t stream);

// A kernel variant: c = a + b on device arrays through `launch`.
std::function<Outcome(const Length&, RunContext&)> add_by(Launcher launch) {
    return [launch](const Length& len, RunContext& ctx) {
        const Vectors v = vectors_for(len, ctx);
        DeviceBuffer<float> da(v.n), db(v.n), dc(v.n);
        da.upload(v.a.data());
        db.upload(v.b.data());
        Outcome out;
        out.bytes = 3.0 * sizeof(float) * v.n;  // read a and b, write c
        out.roofline_bytes = out.bytes;
        out.roofline_flops = v.n;  // one addition per element
        ctx.run_checked(out, [&] { launch(da.data(), db.data(), dc.data(), v.n, 0); }, dc, v.expected.data(),
                        kTolerance, out.bytes);
        return out;
    };
}

}  // namespace

int main(int argc, char** argv) {
    LabOf<Length> lab = declare_lab<Length>(
        "vector add: c = a + b, one thread per element, then a fast grid-stride version",
        // checked by default: 1, a prime, non-multiples of 256 and of 4, and a large size.
        {{{1}, {7}, {997}, {1000}, {65537}, {1000003}, {16777219}},
         // --bench
         {{1 << 20}, {1 << 26}},
         // --quick
         {{1}, {997}, {4099}}},
        "N = number of float elements (1 to 2147483647)");
    lab.variants = {
        {"host", "vector_add_host: allocate, copy in, launch, copy out, free", run_host},
        {"simple", "vector_add_simple: one element per thread, 256-thread blocks", add_by(vector_add_simple)},
        {"fast", "vector_add_fast: grid-stride loop with float4 loads and stores", add_by(vector_add_fast)},
    };
    lab.bench_targets = {{"fast", "67108864", 0.90, kCopyYardstick}};
    lab.check = [](const Length& len) {
        require_at_most({len.n}, INT_MAX, "N must be at most 2147483647 (the kernels index with int)");
    };
    lab.device_bytes = [](const Length& len, const Options&) { return 3.0 * sizeof(float) * len.n; };
    return run_lab(lab, argc, argv);
}
