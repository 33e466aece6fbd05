// Lab 10 driver: owns main(), the data, the check and the timing. Do not edit: your work goes
// in matmul_shared.cu.
#include <iomanip>
#include <map>

#include "main.h"
#include "matmul_shared.h"
#include "matrix.h"
#include "reference.h"

using namespace cudalabs;

namespace {

template <class T>
using Launcher = void (*)(const T*, const T*, T*, int, int, int, cudaStream_t);

template <class T>
Outcome run_typed(Launcher<T> launcher, const GemmDims& g, RunContext& ctx) {
    const Product<T>& p = product_for<T>(g, ctx.seed());
    if (!launcher) return run_cublas_case(p, ctx);
    return run_product_case(p, ctx, [&](const T* a, const T* b, T* c) { launcher(a, b, c, g.m, g.n, g.k, 0); });
}

Outcome run_case(const std::string& variant, const Dims& dims, RunContext& ctx) {
    const GemmDims g = parse_gemm_dims(dims);
    static const std::map<std::string, Launcher<float>> floats = {
        {"cublas", nullptr},           {"tiled16", matmul_tiled16}, {"tiled32", matmul_tiled32},
        {"conflict", matmul_conflict}, {"padded", matmul_padded},   {"dynamic", matmul_dynamic}};
    static const std::map<std::string, Launcher<double>> doubles = {
        {"dcublas", nullptr},
        {"tiled32_double", matmul_tiled32},
        {"conflict_double", matmul_conflict},
        {"padded_double", matmul_padded}};
    if (floats.count(variant)) return run_typed(floats.at(variant), g, ctx);
    Outcome out = run_typed(doubles.at(variant), g, ctx);
    if (variant == "dcublas" && out.note.empty()) out.note = "cublasDgemm";
    return out;
}

// After the table: what the bank conflicts cost, as time ratios at each size.
void print_conflict_cost(const Report& report, std::ostream& out) {
    auto time_of = [&](const std::string& v, const std::string& size) {
        for (const Row& r : report.rows)
            if (r.variant == v && r.size == size && r.status == Status::Pass) return r.time_ms;
        return -1.0;
    };
    bool header = false;
    for (const Row& r : report.rows) {
        if (r.variant != "padded" && r.variant != "padded_double") continue;
        const std::string twin = r.variant == "padded" ? "conflict" : "conflict_double";
        const double slow = time_of(twin, r.size), fast = time_of(r.variant, r.size);
        if (slow <= 0 || fast <= 0) continue;
        if (!header) out << "\nBank conflicts: time of the [32][32] tiles / time of the [32][33] tiles\n";
        header = true;
        out << "  " << std::left << std::setw(16) << (r.variant == "padded" ? "float" : "double")
            << std::setw(16) << r.size << " " << std::fixed << std::setprecision(2) << slow / fast << "x\n";
    }
}

}  // namespace

int main(int argc, char** argv) {
    Lab lab;
    lab.number = "10";
    lab.name = "10-matmul-shared";
    lab.title = "tiled matrix product in shared memory: tile sizes, bank conflicts and padding, float and double, dynamic shared memory";
    lab.size_help = "N (N x N times N x N) or MxNxK (C is M x N, A is M x K, B is K x N); M, N <= 1048560";
    lab.ratio_to = "cublasSgemm (FP32, default math mode) at the same size; double rows: cublasDgemm";
    lab.variants = {
        {"cublas", "cublasSgemm, FP32 without TF32", true},
        {"dcublas", "cublasDgemm: yardstick of the double rows", true},
        {"tiled16", "16 x 16 tiles, static shared memory"},
        {"tiled32", "32 x 32 tiles, static shared memory"},
        {"tiled32_double", "32 x 32 tiles in double (ratio to cublasDgemm)", false, "dcublas"},
        {"conflict", "tiles stored transposed as[tx][ty], [32][32]: 32-way bank conflicts"},
        {"padded", "the same tiles padded to [32][33]: conflict-free"},
        {"conflict_double", "transposed [32][32] tiles in double (ratio to cublasDgemm)", false, "dcublas"},
        {"padded_double", "transposed [32][33] tiles in double (ratio to cublasDgemm)", false, "dcublas"},
        {"dynamic", "extern __shared__: both tiles carved from one allocation sized at launch"},
    };
    lab.check_sizes = {{1}, {7, 5, 3}, {33, 17, 65}, {129, 257, 100}, {300, 211, 500},
                       {1025, 1000, 777}, {2048}};
    lab.bench_sizes = {{1024}, {2048}};
    lab.quick_sizes = {{1}, {33, 17, 65}, {70, 40, 50}};
    lab.check_dims = [](const Dims& d) { parse_gemm_dims(d); };
    lab.device_bytes = [](const Dims& d) {
        return 2.0 * gemm_bytes(parse_gemm_dims(d), sizeof(double) + sizeof(float));
    };
    lab.epilogue = print_conflict_cost;
    lab.run = run_case;
    return run_lab(lab, argc, argv);
}
