// Lab 12 driver: owns main(), the data, the check and the timing. Do not edit: your work goes
// in matmul_fast.cu.
#include <map>

#include "main.h"
#include "matmul_fast.h"
#include "matrix.h"
#include "reference.h"

using namespace cudalabs;

namespace {

using Launcher = void (*)(const float*, const float*, float*, int, int, int, cudaStream_t);

Outcome run_case(const std::string& variant, const Dims& dims, RunContext& ctx) {
    const GemmDims g = parse_gemm_dims(dims);
    const Product<float>& p = product_for<float>(g, ctx.seed());
    if (variant == "cublas") return run_cublas_case(p, ctx);
    static const std::map<std::string, Launcher> launchers = {
        {"tiled", sgemm_tiled},           {"coarse1d", sgemm_coarse1d}, {"coarse2d", sgemm_coarse2d},
        {"vectorized", sgemm_vectorized}, {"warptile", sgemm_warptile}, {"fast", sgemm_fast}};
    const Launcher launch = launchers.at(variant);
    return run_product_case(p, ctx, [&](const float* a, const float* b, float* c) { launch(a, b, c, g.m, g.n, g.k, 0); });
}

}  // namespace

int main(int argc, char** argv) {
    Lab lab;
    lab.number = "12";
    lab.name = "12-matmul-fast";
    lab.title = "the optimisation ladder of SGEMM: register tiles, vectorized loads, warp tiles, double buffering";
    lab.size_help = "N (N x N times N x N) or MxNxK (C is M x N, A is M x K, B is K x N); M, N <= 1048560";
    lab.ratio_to = "cublasSgemm (FP32, default math mode) at the same size";
    lab.variants = {
        {"cublas", "cublasSgemm, FP32 without TF32", true},
        {"tiled", "32 x 32 shared tiles, one output per thread"},
        {"coarse1d", "64 x 64 tiles, 8 outputs per thread (a column)"},
        {"coarse2d", "128 x 128 tiles, 8 x 8 outputs per thread"},
        {"vectorized", "+ float4 global loads, A's tile transposed, float4 shared loads"},
        {"warptile", "+ warp tiling: conflict-free shared loads, L2-friendly block order"},
        {"fast", "+ A packed transposed, cp.async pipeline (multi-buffered shared memory), 256 x 128 tiles"},
    };
    // 1, primes, non-multiples of every tile (and of 4: no float4), non-square, multiples.
    lab.check_sizes = {{1}, {7, 5, 3}, {33, 17, 65}, {129, 257, 100}, {300, 211, 500},
                       {256, 384, 128}, {384, 256, 48}, {1025, 1000, 777}, {1024, 768, 2048}, {2048}};
    lab.bench_sizes = {{1024}, {2048}, {4096}};
    lab.quick_sizes = {{1}, {33, 17, 65}, {130, 132, 36}, {128, 128, 16}, {256, 128, 32}};
    lab.bench_targets = {{"fast", "4096", 0.90, "cublasSgemm"}, {"fast", "2048", 0.80, "cublasSgemm"}};
    lab.check_dims = [](const Dims& d) { parse_gemm_dims(d); };
    lab.device_bytes = [](const Dims& d) { return 2.0 * gemm_bytes(parse_gemm_dims(d), sizeof(float)); };
    lab.run = run_case;
    return run_lab(lab, argc, argv);
}
