// Lab 09 driver: owns main(), the data, the check and the timing. Do not edit: your work goes
// in matmul_global.cu.
#include "main.h"
#include "matmul_global.h"
#include "matrix.h"
#include "reference.h"

using namespace cudalabs;

namespace {

template <class T>
Matrix<T> as_matrix(const T* data, int rows, int cols) {
    return Matrix<T>{cols, rows, cols, const_cast<T*>(data)};
}

template <class T>
Outcome run_typed(const std::string& variant, const GemmDims& g, RunContext& ctx) {
    const Product<T>& p = product_for<T>(g, ctx.seed());
    if (variant == "cublas" || variant == "dcublas") return run_cublas_case(p, ctx);
    if (variant == "flat" || variant == "flat_double")
        return run_product_case(p, ctx, [&](const T* a, const T* b, T* c) {
            matmul_flat(a, b, c, g.m, g.n, g.k, 0);
        });
    if (variant == "struct" || variant == "struct_double")
        return run_product_case(p, ctx, [&](const T* a, const T* b, T* c) {
            matmul_struct(as_matrix(a, g.m, g.k), as_matrix(b, g.k, g.n), as_matrix(c, g.m, g.n), 0);
        });
    return run_product_case(p, ctx, [&](const T* a, const T* b, T* c) {
        if constexpr (sizeof(T) == 4) matmul_uncoalesced(a, b, c, g.m, g.n, g.k, 0);
    });
}

Outcome run_case(const std::string& variant, const Dims& dims, RunContext& ctx) {
    const GemmDims g = parse_gemm_dims(dims);
    const bool dbl = variant == "dcublas" || variant.find("_double") != std::string::npos;
    Outcome out = dbl ? run_typed<double>(variant, g, ctx) : run_typed<float>(variant, g, ctx);
    if (variant == "dcublas" && out.note.empty()) out.note = "cublasDgemm";
    return out;
}

}  // namespace

int main(int argc, char** argv) {
    Lab lab;
    lab.number = "09";
    lab.name = "09-matmul-global";
    lab.title = "matrix product from global memory: flat and struct styles, float and double, coalescing";
    lab.size_help = "N (N x N times N x N) or MxNxK (C is M x N, A is M x K, B is K x N); M, N <= 1048560";
    lab.ratio_to = "cublasSgemm (FP32, default math mode) at the same size; double rows: cublasDgemm";
    lab.variants = {
        {"cublas", "cublasSgemm, FP32 without TF32", true},
        {"dcublas", "cublasDgemm: yardstick of the double rows", true},
        {"flat", "one thread per element of C, index arithmetic, float"},
        {"flat_double", "the same kernel template in double (ratio to cublasDgemm)", false, "dcublas"},
        {"struct", "Matrix {width, height, stride, elements} with accessors, float"},
        {"struct_double", "the struct kernel in double (ratio to cublasDgemm)", false, "dcublas"},
        {"uncoalesced", "threadIdx.x down a column of C: uncoalesced loads and stores"},
    };
    // 1, primes, non-multiples of 16, non-square; the last two are checked against cuBLAS.
    lab.check_sizes = {{1}, {7, 5, 3}, {33, 17, 65}, {129, 257, 100}, {300, 211, 500},
                       {1025, 1000, 777}, {2048}};
    lab.bench_sizes = {{1024}, {2048}};
    lab.quick_sizes = {{1}, {33, 17, 65}, {70, 40, 50}};
    lab.check_dims = [](const Dims& d) { parse_gemm_dims(d); };
    lab.device_bytes = [](const Dims& d) {
        return 2.0 * gemm_bytes(parse_gemm_dims(d), sizeof(double) + sizeof(float));
    };
    lab.run = run_case;
    return run_lab(lab, argc, argv);
}
