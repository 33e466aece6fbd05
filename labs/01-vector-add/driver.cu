// Lab 01 driver: owns main(), the data, the check and the timing. Do not edit: your work goes in
// vector_add.cu. The same driver builds the starter (./lab01), the solution (./sol01) and the
// grader's build, so the check cannot be edited away.
#include <climits>
#include <vector>

#include "main.h"
#include "reference.h"
#include "vector_add.h"

using namespace cudalabs;

namespace {

Outcome run_case(const std::string& variant, const Dims& dims, RunContext& ctx) {
    const int n = static_cast<int>(dims[0]);
    std::vector<float> a(n), b(n), c(n), expected(n);
    fill_uniform(a.data(), n, ctx.seed(), 1);
    fill_uniform(b.data(), n, ctx.seed(), 2);
    vector_add_reference(a.data(), b.data(), expected.data(), n);
    const Tolerance tol = Tolerance::elementwise(kFloatRoundoff);

    Outcome out;
    if (variant == "host") {
        poison_fill(c.data(), n);
        vector_add_host(a.data(), b.data(), c.data(), n);
        ctx.check(out, c.data(), expected.data(), n, tol);
        if (out.check.ok())
            out.time_ms = ctx.time_host([&] { vector_add_host(a.data(), b.data(), c.data(), n); });
        out.note = "time includes allocation, both copies and free";
        return out;
    }

    auto launch = variant == "simple" ? vector_add_simple : vector_add_fast;
    DeviceBuffer<float> da(n), db(n), dc(n);
    da.upload(a.data());
    db.upload(b.data());
    dc.poison();
    launch(da.data(), db.data(), dc.data(), n, 0);
    CHECK_LAUNCH();
    CUDA_CHECK(cudaDeviceSynchronize());
    dc.download(c.data());
    ctx.check(out, c.data(), expected.data(), n, tol);
    out.bytes = 3.0 * sizeof(float) * n;  // read a and b, write c
    if (out.check.ok())
        out.time_ms = ctx.time_gpu([&] { launch(da.data(), db.data(), dc.data(), n, 0); }, out.bytes);
    return out;
}

}  // namespace

int main(int argc, char** argv) {
    Lab lab;
    lab.number = "01";
    lab.name = "01-vector-add";
    lab.title = "vector add: c = a + b, one thread per element, then a fast grid-stride version";
    lab.size_help = "N = number of float elements (1 to 2147483647)";
    lab.variants = {
        {"host", "vector_add_host: allocate, copy in, launch, copy out, free"},
        {"simple", "vector_add_simple: one element per thread, 256-thread blocks"},
        {"fast", "vector_add_fast: grid-stride loop with float4 loads and stores"},
    };
    // 1, a prime, non-multiples of 256 and of 4, and a large size.
    lab.check_sizes = {{1}, {7}, {997}, {1000}, {65537}, {1000003}, {16777219}};
    lab.bench_sizes = {{1 << 20}, {1 << 26}};
    lab.quick_sizes = {{1}, {997}, {4099}};
    lab.bench_targets = {{"fast", "67108864", 0.90, "copy bandwidth"}};
    lab.check_dims = [](const Dims& d) {
        require_extents(d, 1, 1, "one extent, N");
        require_at_most(d, INT_MAX, "N must be at most 2147483647 (the kernels index with int)");
    };
    lab.device_bytes = [](const Dims& d) { return 3.0 * sizeof(float) * d[0]; };
    lab.run = run_case;
    return run_lab(lab, argc, argv);
}
