// Lab 04 driver: owns main(), the data, the checks and the timing. Do not edit: your work goes
// in constant_memory.cu. Sizes are N (points, 16 coefficients) or NxT (T coefficients).
#include <climits>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "constant_memory.h"
#include "main.h"
#include "reference.h"

using namespace cudalabs;

namespace {

constexpr int kDefaultTerms = 16;

int terms_of(const Dims& d) { return d.size() > 1 ? static_cast<int>(d[1]) : kDefaultTerms; }

Outcome run_case(const std::string& variant, const Dims& dims, RunContext& ctx) {
    const int n = static_cast<int>(dims[0]), terms = terms_of(dims);
    const int sets = variant == "divergent" ? kSets : 1;
    std::vector<float> x(n), y(n), expected(n), table(static_cast<size_t>(kSets) * terms);
    fill_uniform(x.data(), n, ctx.seed(), 1);
    fill_uniform(table.data(), table.size(), ctx.seed(), 2);
    poly_reference(table.data(), terms, sets, x.data(), expected.data(), n);
    const double bound = horner_error_bound(table.data(), terms, sets, kFloatRoundoff);
    const Tolerance tol{bound + 1e-30, 2 * kFloatRoundoff};

    DeviceBuffer<float> dx(n), dy(n), dtable(table.size());
    dx.upload(x.data());
    dtable.upload(table.data());
    if (variant != "global") upload_coefficients(table.data(), static_cast<int>(table.size()));
    auto launch = [&] {
        if (variant == "global") poly_global(dtable.data(), dx.data(), dy.data(), n, terms, 0);
        else if (variant == "constant") poly_constant(dx.data(), dy.data(), n, terms, 0);
        else poly_divergent(dx.data(), dy.data(), n, terms, 0);
    };
    dy.poison();
    launch();
    CUDA_CHECK(cudaDeviceSynchronize());
    dy.download(y.data());

    Outcome out;
    ctx.check(out, y.data(), expected.data(), n, tol);
    out.bytes = 2.0 * sizeof(float) * n;  // read x, write y (the coefficients come from caches)
    if (out.check.ok()) out.time_ms = ctx.time_gpu(launch, out.bytes);
    out.note = variant == "global"      ? "c[k] from global memory, same address in every lane"
               : variant == "constant"  ? "c[k] from __constant__, same address in every lane"
                                        : "c[(i % 32) * T + k] from __constant__: 32 addresses per warp";
    return out;
}

void print_budget(RunContext& ctx, std::ostream& out) {
    out << "Constant memory on this GPU: " << ctx.props.totalConstMem << " bytes. The table holds "
        << kSets << " sets of T float coefficients, so T <= " << kMaxTerms << " (" << kSets
        << " x " << kMaxTerms << " x 4 B = " << kConstantBytes << " B).\n\n";
}

// Time of the global variant / time of each constant variant, per size: above 1 is faster.
void compare_with_global(const Report& report, std::ostream& out) {
    std::map<std::string, std::map<std::string, double>> ms;  // size -> variant -> time
    std::vector<std::string> order;
    for (const Row& r : report.rows) {
        if (r.status != Status::Pass || r.time_ms <= 0) continue;
        if (!ms.count(r.size)) order.push_back(r.size);
        ms[r.size][r.variant] = r.time_ms;
    }
    bool header = false, all_met = true, judged = false;
    for (const std::string& size : order) {
        auto& t = ms[size];
        if (!t.count("global")) continue;
        if (!header) {
            out << "\nSpeed against the global variant (global time / variant time; above 1 is faster):\n"
                << "  size                constant  divergent\n";
            header = true;
        }
        char line[128];
        auto cell = [&](const char* v) { return t.count(v) ? t["global"] / t[v] : -1.0; };
        std::snprintf(line, sizeof line, "  %-18s  %8s  %9s\n", size.c_str(),
                      format_number(cell("constant"), 2).c_str(), format_number(cell("divergent"), 2).c_str());
        out << line;
        // The rule is judged on benchmark runs only: tiny default sizes are all launch overhead.
        if (report.mode == "bench" && t.count("constant")) {
            judged = true;
            if (cell("constant") < 0.97) all_met = false;
        }
    }
    if (judged)
        out << "target: uniform constant reads at least as fast as global reads (>= 0.97, timing "
               "noise allowed) at every benchmark size: " << (all_met ? "MET" : "MISSED") << "\n";
}

}  // namespace

int main(int argc, char** argv) {
    Lab lab;
    lab.number = "04";
    lab.name = "04-constant-memory";
    lab.title = "constant memory: polynomial coefficients from global memory, from __constant__ "
                "(uniform), and from __constant__ with a different address in every lane";
    lab.size_help = "N or NxT: N points (1 to 2147483647), T coefficients per polynomial (default "
                    "16, 1 to 512: 32 sets of T floats must fit the 64 KB of constant memory)";
    lab.variants = {
        {"global", "poly_global: coefficients read from global memory, uniform addresses"},
        {"constant", "poly_constant: coefficients read from __constant__, uniform addresses"},
        {"divergent", "poly_divergent: __constant__ with a lane-dependent set: serialized reads"},
    };
    // One point, one coefficient, primes, non-multiples of 256, the largest table.
    lab.check_sizes = {{1}, {7, 1}, {997}, {1000, 3}, {65537, 33}, {1000003, 16}, {4099, 512}};
    // Large enough that no L2 flush runs between repetitions (the working set exceeds 3x L2).
    lab.bench_sizes = {{33554432, 8}, {33554432, 64}, {4194304, 512}};
    lab.quick_sizes = {{1}, {7, 1}, {997, 33}, {300, 512}};
    lab.bench_targets = {{"constant", "33554432x8", 0.80, "copy bandwidth"}};
    lab.check_dims = [](const Dims& d) {
        require_extents(d, 1, 2, "N or NxT (for example 1000000x16)");
        require_at_most({d[0]}, INT_MAX, "N must be at most 2147483647 (the kernels index with int)");
        if (d.size() > 1 && d[1] > kMaxTerms)
            throw UsageError("T = " + std::to_string(d[1]) + " coefficients x " +
                             std::to_string(kSets) + " sets x 4 B = " +
                             std::to_string(constant_bytes_needed(d[1], kSets)) +
                             " B: more than the 64 KB (65536 B) of constant memory; use T <= " +
                             std::to_string(kMaxTerms));
    };
    lab.device_bytes = [](const Dims& d) { return 2.0 * sizeof(float) * d[0] + 65536.0; };
    lab.prologue = print_budget;
    lab.epilogue = compare_with_global;
    lab.run = run_case;
    return run_lab(lab, argc, argv);
}
