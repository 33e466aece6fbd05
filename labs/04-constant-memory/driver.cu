// Lab 04 driver: owns main(), the data, the checks and the timing. Do not edit: your work goes
// in constant_memory.cu. Sizes are N (points, 16 coefficients) or NxT (T coefficients).
#include <functional>
#include <string>
#include <vector>

#include "constant_memory.h"
#include "main.h"
#include "reference.h"

using namespace cudalabs;

namespace {

// A variant's launch. `table` is the coefficient table in global memory: poly_global reads it,
// the others read the copy that upload_coefficients put in __constant__.
using PolyLauncher = std::function<void(const float* table, const float* x, float* y, int n, int terms)>;

// Evaluates the polynomials of `sets` sets (point i uses set i % sets) through `launch`; the
// table holds kSets sets whatever the variant uses, so every variant reads the same memory.
Outcome evaluate(const Polynomials& p, RunContext& ctx, int sets, bool uses_constant, const PolyLauncher& launch) {
    const int n = static_cast<int>(p.points), terms = static_cast<int>(p.terms);
    std::vector<float> x(n), expected(n), table(static_cast<size_t>(kSets) * terms);
    fill_uniform(x.data(), n, ctx.seed(), 1);
    fill_uniform(table.data(), table.size(), ctx.seed(), 2);
    poly_reference(table.data(), terms, sets, x.data(), expected.data(), n);
    const double bound = horner_error_bound(table.data(), terms, sets, kFloatRoundoff);
    const Tolerance tol{bound + 1e-30, 2 * kFloatRoundoff};

    DeviceBuffer<float> dx(n), dy(n), dtable(table.size());
    dx.upload(x.data());
    dtable.upload(table.data());
    if (uses_constant) upload_coefficients(table.data(), static_cast<int>(table.size()));

    Outcome out;
    out.bytes = 2.0 * sizeof(float) * n;  // read x, write y (the coefficients come from caches)
    out.roofline_bytes = poly_bytes(n, terms, sets);
    out.roofline_flops = horner_flops(n, terms);
    ctx.run_checked(out, [&] { launch(dtable.data(), dx.data(), dy.data(), n, terms); }, dy, expected.data(), tol,
                    out.bytes);
    return out;
}

Outcome run_global(const Polynomials& p, RunContext& ctx) {
    Outcome out = evaluate(p, ctx, 1, false, [](const float* table, const float* x, float* y, int n, int terms) {
        poly_global(table, x, y, n, terms, 0);
    });
    out.note = "c[k] from global memory, same address in every lane";
    return out;
}

Outcome run_constant(const Polynomials& p, RunContext& ctx) {
    Outcome out = evaluate(p, ctx, 1, true, [](const float*, const float* x, float* y, int n, int terms) {
        poly_constant(x, y, n, terms, 0);
    });
    out.note = "c[k] from __constant__, same address in every lane";
    return out;
}

Outcome run_divergent(const Polynomials& p, RunContext& ctx) {
    Outcome out = evaluate(p, ctx, kSets, true, [](const float*, const float* x, float* y, int n, int terms) {
        poly_divergent(x, y, n, terms, 0);
    });
    out.note = "c[(i % 32) * T + k] from __constant__: 32 addresses per warp";
    return out;
}

void print_budget(RunContext& ctx, std::ostream& out) {
    out << "Constant memory on this GPU: " << ctx.props.totalConstMem << " bytes. The table holds "
        << kSets << " sets of T float coefficients, so T <= " << kMaxTerms << " (" << kSets
        << " x " << kMaxTerms << " x 4 B = " << kConstantBytes << " B).\n\n";
}

}  // namespace

int main(int argc, char** argv) {
    LabOf<Polynomials> lab = declare_lab<Polynomials>(
        "constant memory: polynomial coefficients from global memory, from __constant__ (uniform), and from "
        "__constant__ with a different address in every lane",
        // checked by default: one point, one coefficient, primes, non-multiples of 256, the largest table.
        {{{1}, {7, 1}, {997}, {1000, 3}, {65537, 33}, {1000003, 16}, {4099, 512}},
         // --bench: large enough that no L2 flush runs between repetitions (the working set exceeds 3x L2).
         {{33554432, 8}, {33554432, 64}, {4194304, 512}},
         // --quick
         {{1}, {7, 1}, {997, 33}, {300, 512}}},
        "N or NxT: N points (1 to 2147483647), T coefficients per polynomial (default 16, 1 to 512: 32 sets "
        "of T floats must fit the 64 KB of constant memory)");
    lab.variants = {
        {"global", "poly_global: coefficients read from global memory, uniform addresses", run_global},
        {"constant", "poly_constant: coefficients read from __constant__, uniform addresses", run_constant},
        {"divergent", "poly_divergent: __constant__ with a lane-dependent set: serialized reads", run_divergent},
    };
    lab.bench_targets = {{"constant", "33554432x8", 0.80, kCopyYardstick}};
    // Uniform constant reads at least as fast as global reads at every benchmark size (0.97:
    // timing noise allowed). Judged on benchmark runs only: tiny sizes are all launch overhead.
    for (const Dims& d : lab.bench_sizes) lab.bench_targets.push_back({"constant", format_dims(d), 0.97, "global"});
    // Speed against the global variant, at every size (above 1 is faster).
    lab.contrasts = {{"constant", "global", "Coefficients from __constant__, same address in every lane"},
                     {"divergent", "global", "Coefficients from __constant__, 32 addresses per warp"}};
    lab.check = [](const Polynomials& p) {
        if (p.terms > kMaxTerms)
            throw UsageError("T = " + std::to_string(p.terms) + " coefficients x " + std::to_string(kSets) +
                             " sets x 4 B = " + std::to_string(constant_bytes_needed(p.terms, kSets)) +
                             " B: more than the 64 KB (65536 B) of constant memory; use T <= " +
                             std::to_string(kMaxTerms));
    };
    lab.device_bytes = [](const Polynomials& p, const Options&) { return 2.0 * sizeof(float) * p.points + 65536.0; };
    lab.prologue = print_budget;
    return run_lab(lab, argc, argv);
}
