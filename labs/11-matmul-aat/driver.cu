// Lab 11 driver: owns main(), the data, the check and the timing. Do not edit: your work goes
// in matmul_aat.cu.
#include <functional>

#include "main.h"
#include "matmul_aat.h"
#include "reference.h"

using namespace cudalabs;

namespace {

// C = A * A^T: the product with B = A, read transposed.
constexpr ProductForm kAat{/*b_transposed=*/true, /*b_is_a=*/true};

using AatLauncher = void (*)(const float* a, float* c, int n, int k, cudaStream_t stream);

std::function<Outcome(const GemmDims&, RunContext&)> aat_kernel(AatLauncher launch) {
    return product_kernel_with<float>(
        [launch](const float* a, const float*, float* c, const GemmDims& g) { launch(a, c, g.m, g.k, 0); }, kAat);
}

}  // namespace

int main(int argc, char** argv) {
    LabOf<GemmDims> lab = declare_lab<GemmDims>(
        "C = A * A^T: the transposed tile read by column (bank conflicts) and the padded fix",
        // checked by default
        {{{1}, {7, 3}, {33, 65}, {100, 17}, {257, 300}, {1000, 777}, {2048}},
         // --bench
         {{1024}, {2048}, {4096}},
         // --quick
         {{1}, {33, 65}, {50, 70}}},
        "N (A is N x N) or NxK (A is N x K, C is N x N); N <= 1048560");
    lab.ratio_to = "cublasSgemm (FP32, default math mode) computing A * A^T at the same size";
    lab.variants = {
        {"cublas", "cublasSgemm(A, A^T), FP32 without TF32", cublas_product<float>(kAat, "cublasSgemm with B = A transposed"),
         true},
        {"unpadded16", "16 x 16 tiles, A^T tile read by column: 8-way bank conflicts", aat_kernel(aat_unpadded16)},
        {"padded16", "16 x 17 tile: conflict-free", aat_kernel(aat_padded16)},
        {"unpadded", "32 x 32 tiles: 32-way bank conflicts", aat_kernel(aat_unpadded)},
        {"padded", "32 x 33 tile: conflict-free", aat_kernel(aat_padded)},
    };
    // The padding gain at every size; in benchmark runs padding must at least halve the time of
    // the 32 x 32 tiles (set for an H100/H200).
    lab.contrasts = {{"padded", "unpadded", "Padding, 32 x 32 tiles"}, {"padded16", "unpadded16", "Padding, 16 x 16 tiles"}};
    for (const Dims& d : lab.bench_sizes) lab.bench_targets.push_back({"padded", format_dims(d), 2.0, "unpadded"});
    lab.parse = aat_size;
    lab.device_bytes = [](const GemmDims& g, const Options&) {
        return sizeof(float) * (static_cast<double>(g.m) * g.k + 2.0 * g.m * g.m);
    };
    return run_lab(lab, argc, argv);
}
