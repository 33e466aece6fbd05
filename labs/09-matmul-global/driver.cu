// Lab 09 driver: owns main(), the data, the check and the timing. Do not edit: your work goes
// in matmul_global.cu.
#include <algorithm>
#include <climits>
#include <limits>
#include <vector>

#include "main.h"
#include "matmul_global.h"
#include "matrix.h"
#include "reference.h"

using namespace cudalabs;

namespace {

// The struct variants see padded rows: each matrix's stride is its width plus kRowPadding,
// as for a sub-matrix or a row pitch, so a kernel that steps rows by the width instead of the
// stride reads and writes the wrong elements and fails the check. The padding of A and B holds
// NaN, so reading it shows too.
constexpr int kRowPadding = 3;

template <class T>
struct PaddedMatrix {
    DeviceBuffer<T> buffer;
    Matrix<T> view;
};

template <class T>
PaddedMatrix<T> padded_input(const T* dense, int rows, int cols) {
    const int stride = cols + kRowPadding;
    std::vector<T> host(static_cast<size_t>(rows) * stride, std::numeric_limits<T>::quiet_NaN());
    for (int r = 0; r < rows; ++r)
        std::copy(dense + static_cast<size_t>(r) * cols, dense + static_cast<size_t>(r + 1) * cols,
                  host.begin() + static_cast<size_t>(r) * stride);
    PaddedMatrix<T> m{DeviceBuffer<T>(host.size()), {}};
    m.buffer.upload(host.data());
    m.view = Matrix<T>{cols, rows, stride, m.buffer.data()};
    return m;
}

// The struct product: A, B and C with padded rows; C's rows are unpadded on the host for the
// check (its padding must stay poisoned: a write there is a write out of the matrix).
template <class T>
Outcome run_struct_case(const Product<T>& p, RunContext& ctx) {
    const GemmDims& g = p.dims;
    PaddedMatrix<T> a = padded_input(p.a.data(), g.m, g.k);
    PaddedMatrix<T> b = padded_input(p.host_b(), g.k, g.n);
    const int c_stride = g.n + kRowPadding;
    DeviceBuffer<T> dc(static_cast<size_t>(g.m) * c_stride);
    const Matrix<T> c{g.n, g.m, c_stride, dc.data()};
    dc.poison();
    matmul_struct(a.view, b.view, c, 0);
    CHECK_LAUNCH();
    CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<T> padded(dc.size()), dense(p.c_count());
    dc.download(padded.data());
    bool padding_written = false;
    for (int r = 0; r < g.m; ++r) {
        const T* row = padded.data() + static_cast<size_t>(r) * c_stride;
        std::copy(row, row + g.n, dense.begin() + static_cast<size_t>(r) * g.n);
        for (int j = g.n; j < c_stride; ++j) padding_written |= !is_poison(row[j]);
    }
    Outcome out;
    check_product(ctx, out, p, dense.data());
    if (padding_written && out.failure.empty())
        out.failure = "C's row padding (elements between width and stride) was written: step rows by the stride";
    out.flops = gemm_flops(g);
    out.note = "rows padded: stride = width + " + std::to_string(kRowPadding);
    if (out.check.ok() && out.failure.empty())
        out.time_ms = ctx.time_gpu([&] { matmul_struct(a.view, b.view, c, 0); }, gemm_bytes(g, sizeof(T)));
    return out;
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
        return run_struct_case(p, ctx);
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
    lab.check_dims = [](const Dims& d) {
        const GemmDims g = parse_gemm_dims(d);
        // The struct variants index padded rows: those must fit the kernels' int indices too.
        const long long pad = kRowPadding;
        if (static_cast<long long>(g.m) * (g.k + pad) > INT_MAX || static_cast<long long>(g.k) * (g.n + pad) > INT_MAX ||
            static_cast<long long>(g.m) * (g.n + pad) > INT_MAX)
            throw UsageError("size '" + format_dims(d) + "' is too large: with the struct variants' padded rows (" +
                             std::to_string(kRowPadding) + " elements) a matrix must stay within 2147483647 elements");
    };
    lab.device_bytes = [](const Dims& d) {
        return 2.0 * gemm_bytes(parse_gemm_dims(d), sizeof(double) + sizeof(float));
    };
    lab.run = run_case;
    return run_lab(lab, argc, argv);
}
