// Lab 11 driver: owns main(), the data, the check and the timing. Do not edit: your work goes
// in matmul_aat.cu.
#include <iomanip>
#include <map>

#include "main.h"
#include "matmul_aat.h"
#include "matrix.h"
#include "reference.h"

using namespace cudalabs;

namespace {

// "N": A is N x N; "NxK": A is N x K. As a product: C (N x N) = A (N x K) * A^T.
GemmDims aat_dims(const Dims& d) {
    if (d.size() > 2)
        throw UsageError("size '" + format_dims(d) + "' does not fit this lab: expected N or NxK (A is N x K)");
    try {
        return parse_gemm_dims({d[0], d[0], d.size() == 2 ? d[1] : d[0]});
    } catch (const UsageError&) {
        throw UsageError("size '" + format_dims(d) + "' is too large: N may be at most 1048560 and "
                         "A and C at most 2147483647 elements each (the kernels index with int)");
    }
}

using Launcher = void (*)(const float*, float*, int, int, cudaStream_t);

Outcome run_case(const std::string& variant, const Dims& dims, RunContext& ctx) {
    const GemmDims g = aat_dims(dims);
    const Product<float>& p = product_for<float>(g, ctx.seed(), /*b_transposed=*/true, /*b_is_a=*/true);
    if (variant == "cublas") {
        Outcome out = run_cublas_case(p, ctx);
        if (out.note.empty()) out.note = "cublasSgemm with B = A transposed";
        return out;
    }
    static const std::map<std::string, Launcher> launchers = {
        {"unpadded16", aat_unpadded16}, {"padded16", aat_padded16},
        {"unpadded", aat_unpadded},     {"padded", aat_padded}};
    const Launcher launch = launchers.at(variant);
    return run_product_case(p, ctx, [&](const float* a, const float*, float* c) { launch(a, c, g.m, g.k, 0); });
}

double time_of(const Report& report, const std::string& variant, const std::string& size) {
    for (const Row& r : report.rows)
        if (r.variant == variant && r.size == size && r.status == Status::Pass) return r.time_ms;
    return -1;
}

// After the table: the speed-up from padding at each size (the lab's target: >= 2 for 32 x 32
// tiles in benchmark runs, measured on an H100/H200).
void print_padding_gain(const Report& report, std::ostream& out) {
    bool header = false;
    for (const Row& r : report.rows) {
        if (r.variant != "padded" && r.variant != "padded16") continue;
        const std::string twin = r.variant == "padded" ? "unpadded" : "unpadded16";
        const double slow = time_of(report, twin, r.size), fast = time_of(report, r.variant, r.size);
        if (slow <= 0 || fast <= 0) continue;
        if (!header) out << "\nPadding: time unpadded / time padded\n";
        header = true;
        const double gain = slow / fast;
        out << "  " << std::left << std::setw(10) << (r.variant == "padded" ? "32 x 32" : "16 x 16")
            << std::setw(12) << r.size << std::fixed << std::setprecision(2) << gain << "x";
        if (report.mode == "bench" && r.variant == "padded")
            out << "   target >= 2.00: " << (gain >= 2.0 ? "MET" : "MISSED");
        out << "\n";
    }
}

}  // namespace

int main(int argc, char** argv) {
    Lab lab;
    lab.number = "11";
    lab.name = "11-matmul-aat";
    lab.title = "C = A * A^T: the transposed tile read by column (bank conflicts) and the padded fix";
    lab.size_help = "N (A is N x N) or NxK (A is N x K, C is N x N); N <= 1048560";
    lab.ratio_to = "cublasSgemm (FP32, default math mode) computing A * A^T at the same size";
    lab.variants = {
        {"cublas", "cublasSgemm(A, A^T), FP32 without TF32", true},
        {"unpadded16", "16 x 16 tiles, A^T tile read by column: 8-way bank conflicts"},
        {"padded16", "16 x 17 tile: conflict-free"},
        {"unpadded", "32 x 32 tiles: 32-way bank conflicts"},
        {"padded", "32 x 33 tile: conflict-free"},
    };
    lab.check_sizes = {{1}, {7, 3}, {33, 65}, {100, 17}, {257, 300}, {1000, 777}, {2048}};
    lab.bench_sizes = {{1024}, {2048}, {4096}};
    lab.quick_sizes = {{1}, {33, 65}, {50, 70}};
    lab.check_dims = [](const Dims& d) { aat_dims(d); };
    lab.device_bytes = [](const Dims& d) {
        const GemmDims g = aat_dims(d);
        return sizeof(float) * (static_cast<double>(g.m) * g.k + 2.0 * g.m * g.m);
    };
    lab.epilogue = print_padding_gain;
    lab.run = run_case;
    return run_lab(lab, argc, argv);
}
