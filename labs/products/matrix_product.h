// The library of the matrix-product labs (09 to 12): the shape of a product, the double-precision
// CPU reference, the sampled check of a large result, and (in CUDA code) the variants every
// product lab has: cuBLAS as reference and yardstick, and a hand-written kernel as one entry of
// the lab's list (product_kernel), with the inputs and expected result of a size kept for all
// its variants.
//
// The first half is host-only C++ (unit-tested with g++); the second half needs nvcc and cuBLAS.
// Matrices are row-major: element (r, c) of a matrix with `cols` columns is at r * cols + c.
#pragma once
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "args.h"
#include "random.h"
#include "shape.h"
#include "validate.h"

namespace cudalabs {

constexpr long long kMaxGemmExtent = 65535LL * 16;

// C (m x n) = A (m x k) * B (k x n), or A * B^T with B stored n x k: the shape of the product
// labs. "N" is N x N x N; "MxNxK" is M x N x K. Every matrix must have at most INT_MAX elements
// (the kernels index with int). parse throws UsageError otherwise.
struct GemmDims {
    int m = 0, n = 0, k = 0;
    static GemmDims parse(const Dims& d);
};

inline GemmDims GemmDims::parse(const Dims& d) {
    if (d.size() != 1 && d.size() != 3)
        throw UsageError("size '" + format_dims(d) +
                         "' does not fit this lab: expected N (square) or MxNxK (C is M x N, the "
                         "inner dimension K)");
    const long long m = d[0], n = d.size() == 3 ? d[1] : d[0], k = d.size() == 3 ? d[2] : d[0];
    if (m > kMaxGemmExtent || n > kMaxGemmExtent)
        throw UsageError("size '" + format_dims(d) +
                         "' is too large: M and N may be at most 1048560 (65535 blocks of 16 in "
                         "the grid's y dimension)");
    // m * k > INT_MAX and so on, without overflowing for extents up to 2^62.
    if (k > INT_MAX / m || k > INT_MAX / n || n > INT_MAX / m)
        throw UsageError("size '" + format_dims(d) +
                         "' is too large: each matrix may hold at most 2147483647 elements (the "
                         "kernels index with int)");
    return {static_cast<int>(m), static_cast<int>(n), static_cast<int>(k)};
}

inline double gemm_flops(const GemmDims& g) { return 2.0 * g.m * g.n * g.k; }

// Bytes of A, B and C: what one product must at least move through device memory.
inline double gemm_bytes(const GemmDims& g, size_t element_bytes) {
    return (static_cast<double>(g.m) * g.k + static_cast<double>(g.k) * g.n +
            static_cast<double>(g.m) * g.n) * static_cast<double>(element_bytes);
}

// The roofline's compulsory traffic of one product: gemm_bytes, except that where B is A (lab
// 11's A * A^T) A is read once, not twice.
inline double product_roofline_bytes(const GemmDims& g, size_t element_bytes, bool b_is_a) {
    return gemm_bytes(g, element_bytes) -
           (b_is_a ? static_cast<double>(g.k) * g.n * static_cast<double>(element_bytes) : 0.0);
}

// Products up to this many multiply-adds are checked against the full CPU reference (well under
// a second); larger ones against cuBLAS, whose own result is checked at sampled elements.
constexpr double kCpuReferenceMaxMacs = 268435456.0;  // 2^28
inline bool use_cpu_reference(const GemmDims& g) {
    return static_cast<double>(g.m) * g.n * g.k <= kCpuReferenceMaxMacs;
}

// Tolerance for C = A*B with inputs in [-1, 1]: every term is at most 1 in magnitude. Compared
// with another float computation (cuBLAS), both sides carry rounding error: twice the allowance.
inline Tolerance product_tolerance(int k, double roundoff, bool against_gpu = false) {
    return Tolerance::accumulation(static_cast<size_t>(k), (against_gpu ? 2.0 : 1.0) * roundoff,
                                   1.0);
}

// One element of the exact product, in double: row i of A times column j of B (row j of B when
// b_transposed).
template <class T>
double product_at(const T* a, const T* b, const GemmDims& g, bool b_transposed, int i, int j) {
    double sum = 0;
    for (int p = 0; p < g.k; ++p) {
        double bv = b_transposed ? static_cast<double>(b[static_cast<size_t>(j) * g.k + p])
                                 : static_cast<double>(b[static_cast<size_t>(p) * g.n + j]);
        sum += static_cast<double>(a[static_cast<size_t>(i) * g.k + p]) * bv;
    }
    return sum;
}

// The whole product in double (i-p-j order: the inner loop runs along rows of B and C).
template <class T>
void product_reference(const T* a, const T* b, const GemmDims& g, bool b_transposed, double* c) {
    std::fill(c, c + static_cast<size_t>(g.m) * g.n, 0.0);
    if (b_transposed) {
        for (int i = 0; i < g.m; ++i)
            for (int j = 0; j < g.n; ++j) c[static_cast<size_t>(i) * g.n + j] = product_at(a, b, g, true, i, j);
        return;
    }
    for (int i = 0; i < g.m; ++i) {
        double* row = c + static_cast<size_t>(i) * g.n;
        for (int p = 0; p < g.k; ++p) {
            const double av = static_cast<double>(a[static_cast<size_t>(i) * g.k + p]);
            const T* brow = b + static_cast<size_t>(p) * g.n;
            for (int j = 0; j < g.n; ++j) row[j] += av * static_cast<double>(brow[j]);
        }
    }
}

// Elements to sample in a rows x cols result: the four corners, the centre, the last row and
// column's middles, then `count` seeded random positions. Flat row-major indices, no repeats.
inline std::vector<size_t> sample_positions(int rows, int cols, size_t count, uint64_t seed) {
    std::vector<size_t> pos;
    auto add = [&](long long r, long long c) {
        size_t flat = static_cast<size_t>(r) * static_cast<size_t>(cols) + static_cast<size_t>(c);
        if (std::find(pos.begin(), pos.end(), flat) == pos.end()) pos.push_back(flat);
    };
    add(0, 0);
    add(0, cols - 1);
    add(rows - 1, 0);
    add(rows - 1, cols - 1);
    add(rows / 2, cols / 2);
    add(rows - 1, cols / 2);
    add(rows / 2, cols - 1);
    const size_t total = static_cast<size_t>(rows) * static_cast<size_t>(cols);
    for (size_t s = 0; s < count && pos.size() < total; ++s) {
        uint64_t r = mix64(seed ^ (0xA5A5A5A5ull + s));
        add(static_cast<long long>(r % static_cast<uint64_t>(rows)),
            static_cast<long long>((r >> 32) % static_cast<uint64_t>(cols)));
    }
    return pos;
}

// Gathers the sampled elements of a result `c` and the exact values there, for a check.
template <class T>
void sample_product(const T* a, const T* b, const GemmDims& g, bool b_transposed, const T* c,
                    const std::vector<size_t>& positions, std::vector<T>& got,
                    std::vector<double>& expected) {
    got.clear();
    expected.clear();
    for (size_t flat : positions) {
        const int i = static_cast<int>(flat / static_cast<size_t>(g.n));
        const int j = static_cast<int>(flat % static_cast<size_t>(g.n));
        got.push_back(c[flat]);
        expected.push_back(product_at(a, b, g, b_transposed, i, j));
    }
}

}  // namespace cudalabs

#if defined(__CUDACC__)
// ---- CUDA side: cuBLAS and the per-size cache of inputs and expected results -----------------
#include <functional>
#include <memory>

#include "buffers.h"
#include "check.h"
#include "cublas.h"
#include "declare_lab.h"
#include "lab.h"

namespace cudalabs {

namespace detail {
inline cublasStatus_t gemm(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m,
                           int n, int k, const float* a, int lda, const float* b, int ldb, float* c,
                           int ldc) {
    const float one = 1.0f, zero = 0.0f;
    return cublasSgemm(h, ta, tb, m, n, k, &one, a, lda, b, ldb, &zero, c, ldc);
}
inline cublasStatus_t gemm(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m,
                           int n, int k, const double* a, int lda, const double* b, int ldb,
                           double* c, int ldc) {
    const double one = 1.0, zero = 0.0;
    return cublasDgemm(h, ta, tb, m, n, k, &one, a, lda, b, ldb, &zero, c, ldc);
}
}  // namespace detail

// Row-major C = A * B (B stored k x n) or A * B^T (B stored n x k), on device arrays.
// cuBLAS is column-major: a row-major matrix is its transpose in column-major order, so it
// computes C^T = B^T * A^T (n x m, column-major), which is row-major C, with A and B swapped.
template <class T>
void gemm_cublas(const T* a, const T* b, T* c, const GemmDims& g, bool b_transposed = false) {
    if (b_transposed)
        CUBLAS_CHECK(detail::gemm(cublas_handle(), CUBLAS_OP_T, CUBLAS_OP_N, g.n, g.m, g.k, b, g.k,
                                  a, g.k, c, g.n));
    else
        CUBLAS_CHECK(detail::gemm(cublas_handle(), CUBLAS_OP_N, CUBLAS_OP_N, g.n, g.m, g.k, b, g.n,
                                  a, g.k, c, g.n));
}

// Inputs of one product size (A from stream 1 of the seed, B from stream 2; or B = A for A*A^T)
// on host and device, and its expected result: the CPU reference for small products, else the
// cuBLAS result, itself checked at sampled elements against double precision.
template <class T>
struct Product {
    GemmDims dims;
    bool b_transposed = false;
    bool b_is_a = false;
    uint64_t seed = 0;
    std::vector<T> a, b;
    DeviceBuffer<T> da, db;
    std::vector<double> cpu_expected;  // when use_cpu_reference(dims)
    std::vector<T> gpu_expected;       // otherwise: cuBLAS's result
    std::string reference_failure;     // non-empty: cuBLAS failed its sampled check

    const T* host_b() const { return b_is_a ? a.data() : b.data(); }
    const T* dev_b() const { return b_is_a ? da.data() : db.data(); }
    size_t c_count() const { return static_cast<size_t>(dims.m) * static_cast<size_t>(dims.n); }
    bool cpu() const { return use_cpu_reference(dims); }
};

// The product for these dims and seed, built on first use and kept until another size asks:
// every variant of a size shares one set of inputs and one reference computation.
template <class T>
Product<T>& product_for(const GemmDims& g, uint64_t seed, bool b_transposed = false,
                        bool b_is_a = false) {
    static std::unique_ptr<Product<T>> cached;
    Product<T>* p = cached.get();
    if (p && p->dims.m == g.m && p->dims.n == g.n && p->dims.k == g.k && p->seed == seed &&
        p->b_transposed == b_transposed && p->b_is_a == b_is_a)
        return *p;
    cached.reset();  // free the previous size's memory first
    cached = std::make_unique<Product<T>>();
    p = cached.get();
    p->dims = g;
    p->seed = seed;
    p->b_transposed = b_transposed;
    p->b_is_a = b_is_a;
    const size_t a_count = static_cast<size_t>(g.m) * g.k, b_count = static_cast<size_t>(g.k) * g.n;
    p->a.resize(a_count);
    fill_uniform(p->a.data(), a_count, seed, 1);
    p->da = DeviceBuffer<T>(a_count);
    p->da.upload(p->a.data());
    if (!b_is_a) {
        p->b.resize(b_count);
        fill_uniform(p->b.data(), b_count, seed, 2);
        p->db = DeviceBuffer<T>(b_count);
        p->db.upload(p->b.data());
    }
    if (p->cpu()) {
        p->cpu_expected.resize(p->c_count());
        product_reference(p->a.data(), p->host_b(), g, b_transposed, p->cpu_expected.data());
    } else {
        DeviceBuffer<T> dc(p->c_count());
        dc.poison();
        gemm_cublas(p->da.data(), p->dev_b(), dc.data(), g, b_transposed);
        CUDA_CHECK(cudaDeviceSynchronize());
        p->gpu_expected.resize(p->c_count());
        dc.download(p->gpu_expected.data());
        std::vector<T> got;
        std::vector<double> exact;
        sample_product(p->a.data(), p->host_b(), g, b_transposed, p->gpu_expected.data(),
                       sample_positions(g.m, g.n, 512, seed), got, exact);
        CheckResult r = check_values(got.data(), exact.data(), got.size(),
                                     product_tolerance(g.k, sizeof(T) == 4 ? kFloatRoundoff : kDoubleRoundoff));
        if (!r.ok()) p->reference_failure = "the cuBLAS reference failed its sampled check: " + describe_failure(r);
    }
    return *p;
}

// Checks a variant's result `got` (host copy, m x n) against the product's expected result.
template <class T>
void check_product(RunContext& ctx, Outcome& out, const Product<T>& p, const T* got) {
    const double roundoff = sizeof(T) == 4 ? kFloatRoundoff : kDoubleRoundoff;
    const std::vector<size_t> shape = {static_cast<size_t>(p.dims.m), static_cast<size_t>(p.dims.n)};
    if (p.cpu()) {
        ctx.check(out, got, p.cpu_expected.data(), p.c_count(), product_tolerance(p.dims.k, roundoff), shape);
    } else {
        ctx.check(out, got, p.gpu_expected.data(), p.c_count(),
                  product_tolerance(p.dims.k, roundoff, true), shape);
        if (!p.reference_failure.empty() && out.failure.empty()) out.failure = p.reference_failure;
    }
}

// Which product a lab computes: A * B, or A * B^T with B stored n x k, or A * A^T (B is A).
struct ProductForm {
    bool b_transposed = false;
    bool b_is_a = false;
};

template <class T>
const Product<T>& product_of(const GemmDims& g, RunContext& ctx, ProductForm form) {
    return product_for<T>(g, ctx.seed(), form.b_transposed, form.b_is_a);
}

// Every product's roofline counts: the full product's multiply-adds (A * A^T included, symmetry
// unused) and its compulsory traffic.
template <class T>
void count_for_roofline(Outcome& out, const Product<T>& p) {
    out.roofline_flops = gemm_flops(p.dims);
    out.roofline_bytes = product_roofline_bytes(p.dims, sizeof(T), p.b_is_a);
}

// Runs cuBLAS as a variant (the yardstick, or the double-precision row): computes into a
// poisoned C, checks the result at sampled elements against double precision (the full CPU
// reference when the product is small), and times it when it passed.
template <class T>
Outcome run_cublas_case(const Product<T>& p, RunContext& ctx) {
    Outcome out;
    out.flops = gemm_flops(p.dims);
    count_for_roofline(out, p);
    DeviceBuffer<T> dc(p.c_count());
    dc.poison();
    const double roundoff = sizeof(T) == 4 ? kFloatRoundoff : kDoubleRoundoff;
    ctx.run_checked(
        out, [&] { gemm_cublas(p.da.data(), p.dev_b(), dc.data(), p.dims, p.b_transposed); },
        [&] {
            std::vector<T> c(p.c_count());
            dc.download(c.data());
            if (p.cpu()) {
                ctx.check(out, c.data(), p.cpu_expected.data(), p.c_count(), product_tolerance(p.dims.k, roundoff),
                          {static_cast<size_t>(p.dims.m), static_cast<size_t>(p.dims.n)});
                return;
            }
            std::vector<T> got;
            std::vector<double> exact;
            sample_product(p.a.data(), p.host_b(), p.dims, p.b_transposed, c.data(),
                           sample_positions(p.dims.m, p.dims.n, 512, p.seed), got, exact);
            ctx.check(out, got.data(), exact.data(), got.size(), product_tolerance(p.dims.k, roundoff));
            out.note = "checked at " + std::to_string(got.size()) + " sampled elements";
        },
        gemm_bytes(p.dims, sizeof(T)));
    return out;
}

// Runs a hand-written product: `launch(a, b, c)` enqueues it on the default stream.
template <class T, class Launch>
Outcome run_product_case(const Product<T>& p, RunContext& ctx, Launch&& launch) {
    Outcome out;
    out.flops = gemm_flops(p.dims);
    count_for_roofline(out, p);
    DeviceBuffer<T> dc(p.c_count());
    dc.poison();
    ctx.run_checked(
        out, [&] { launch(p.da.data(), p.dev_b(), dc.data()); },
        [&] {
            std::vector<T> c(p.c_count());
            dc.download(c.data());
            check_product(ctx, out, p, c.data());
        },
        gemm_bytes(p.dims, sizeof(T)));
    return out;
}

// The variants of a product lab, as entries of its list:
//   {"cublas", "cublasSgemm...", cublas_product<float>(), true}
//   {"tiled", "32 x 32 tiles", product_kernel<float>(sgemm_tiled)}
template <class T>
using ProductLauncher = void (*)(const T* a, const T* b, T* c, int m, int n, int k, cudaStream_t stream);

template <class T>
std::function<Outcome(const GemmDims&, RunContext&)> cublas_product(ProductForm form = {}, std::string note = "") {
    return [form, note](const GemmDims& g, RunContext& ctx) {
        Outcome out = run_cublas_case(product_of<T>(g, ctx, form), ctx);
        if (out.note.empty()) out.note = note;
        return out;
    };
}

// A kernel of the usual interface, launcher(a, b, c, m, n, k, stream).
template <class T>
std::function<Outcome(const GemmDims&, RunContext&)> product_kernel(ProductLauncher<T> launcher, ProductForm form = {}) {
    return [launcher, form](const GemmDims& g, RunContext& ctx) {
        return run_product_case(product_of<T>(g, ctx, form), ctx,
                                [&](const T* a, const T* b, T* c) { launcher(a, b, c, g.m, g.n, g.k, 0); });
    };
}

// Any other interface: launch(a, b, c, g) enqueues the product on the default stream.
template <class T, class Launch>
std::function<Outcome(const GemmDims&, RunContext&)> product_kernel_with(Launch launch, ProductForm form = {}) {
    return [launch, form](const GemmDims& g, RunContext& ctx) {
        return run_product_case(product_of<T>(g, ctx, form), ctx,
                                [&](const T* a, const T* b, T* c) { launch(a, b, c, g); });
    };
}

// What every M x N x K product lab declares alike: its size help, its yardstick cublasSgemm
// and, for labs with double rows, cublasDgemm.
inline constexpr const char* kProductSizeHelp =
    "N (N x N times N x N) or MxNxK (C is M x N, A is M x K, B is K x N); M, N <= 1048560";

inline VariantOf<GemmDims> sgemm_yardstick() {
    return {"cublas", "cublasSgemm, FP32 without TF32", cublas_product<float>(), true};
}

inline VariantOf<GemmDims> dgemm_yardstick() {
    return {"dcublas", "cublasDgemm: yardstick of the double rows", cublas_product<double>({}, "cublasDgemm"),
            true, "", "double"};
}

// A product lab of float and double rows (09, 10): cublasSgemm and cublasDgemm first as the
// yardsticks of its `kernels`, the sizes both check (1, primes, non-multiples of 16, non-square;
// the last two are checked against cuBLAS), and room for A, B and C in both precisions.
inline LabOf<GemmDims> declare_float_and_double_product_lab(const std::string& title,
                                                           const std::vector<VariantOf<GemmDims>>& kernels) {
    LabOf<GemmDims> lab = declare_lab<GemmDims>(
        title,
        {{{1}, {7, 5, 3}, {33, 17, 65}, {129, 257, 100}, {300, 211, 500}, {1025, 1000, 777}, {2048}},
         {{1024}, {2048}},
         {{1}, {33, 17, 65}, {70, 40, 50}}},
        kProductSizeHelp);
    lab.ratio_to = "cublasSgemm (FP32, default math mode) at the same size; double rows: cublasDgemm";
    lab.variants = {sgemm_yardstick(), dgemm_yardstick()};
    lab.variants.insert(lab.variants.end(), kernels.begin(), kernels.end());
    lab.device_bytes = [](const GemmDims& g, const Options&) {
        return 2.0 * gemm_bytes(g, sizeof(double) + sizeof(float));
    };
    return lab;
}

}  // namespace cudalabs
#endif  // __CUDACC__
