// Lab 13 driver: owns main(), the data, the check and the timing. Do not edit: your work goes in
// matvec.cu. The same driver builds the starter (./lab13), the solution (./sol13) and the
// grader's build, so the check cannot be edited away.
#include <functional>
#include <string>
#include <vector>

#include "cublas.h"
#include "main.h"
#include "matvec.h"
#include "reference.h"

using namespace cudalabs;

namespace {

// The inputs of one size and their references, kept from one variant to the next: at
// 16384 x 16384 generating A and the double references takes seconds, uploading it a fraction.
struct Problem {
    Matrix size;
    uint64_t seed = 0;
    std::vector<float> A;
    std::vector<float> x_cols;  // for y = A x: cols elements
    std::vector<float> x_rows;  // for y^T = x^T A: rows elements
    std::vector<double> y_matvec, y_vecmat;

    const std::vector<double>& expected(bool vecmat) {
        std::vector<double>& y = vecmat ? y_vecmat : y_matvec;
        if (y.empty()) {
            y.resize(vecmat ? size.cols : size.rows);
            if (vecmat) vecmat_reference(A.data(), x_rows.data(), y.data(), size.rows, size.cols);
            else matvec_reference(A.data(), x_cols.data(), y.data(), size.rows, size.cols);
        }
        return y;
    }
};

Problem& problem_for(const Matrix& m, uint64_t seed) {
    static Problem p;
    if (p.size.rows != m.rows || p.size.cols != m.cols || p.seed != seed || p.A.empty()) {
        p = Problem();  // free the previous size first
        p.size = m;
        p.seed = seed;
        p.A.resize(m.count());
        p.x_cols.resize(m.cols);
        p.x_rows.resize(m.rows);
        fill_uniform(p.A.data(), p.A.size(), seed, 1);
        fill_uniform(p.x_cols.data(), p.x_cols.size(), seed, 2);
        fill_uniform(p.x_rows.data(), p.x_rows.size(), seed, 3);
    }
    return p;
}

// Enqueues one product on the default stream: y = A x, or y^T = x^T A (vecmat).
using GemvLaunch = std::function<void(const float* A, const float* x, float* y, int rows, int cols)>;

// One variant: the product of one orientation through `launch`, checked against the double
// reference and timed when it passed. The note always holds `about`; beside a time it starts
// with the ratio to the copy bandwidth, then `remark`.
std::function<Outcome(const Matrix&, RunContext&)> gemv_variant(bool vecmat, GemvLaunch launch, std::string about,
                                                                 std::string remark) {
    return [=](const Matrix& m, RunContext& ctx) {
        Problem& p = problem_for(m, ctx.seed());
        const int rows = static_cast<int>(m.rows), cols = static_cast<int>(m.cols);
        const std::vector<float>& x = vecmat ? p.x_rows : p.x_cols;
        const std::vector<double>& expected = p.expected(vecmat);
        const size_t terms = vecmat ? rows : cols;  // the length of each output's sum

        DeviceBuffer<float> dA(m.count()), dx(x.size()), dy(vecmat ? cols : rows);
        dA.upload(p.A.data());
        dx.upload(x.data());

        Outcome out;
        out.note = about;
        out.bytes = 4.0 * (static_cast<double>(rows) * cols + rows + cols);  // A, x, y once each
        out.roofline_bytes = out.bytes;
        out.roofline_flops = 2.0 * rows * cols;  // a multiply-add per element of A
        // Products of two numbers uniform in [-1, 1) have a root mean square of 1/3.
        ctx.run_checked(out, [&] { launch(dA.data(), dx.data(), dy.data(), rows, cols); }, dy, expected.data(),
                        Tolerance::accumulation(terms, kFloatRoundoff, 1.0 / 3.0), out.bytes);
        if (out.time_ms < 0) return out;
        Row row;
        row.time_ms = out.time_ms;
        row.bytes = out.bytes;
        out.note = format_number(copy_ratio(row, ctx.device), 2) + " x copy";
        for (const std::string& part : {remark, about})
            if (!part.empty()) out.note += "; " + part;
        return out;
    };
}

// cuBLAS's gemv on the column-major view of A (reference.h says which operation is which).
std::function<Outcome(const Matrix&, RunContext&)> cublas_gemv(bool vecmat) {
    const bool transpose = gemv_for_row_major(vecmat, 1, 1).transpose;  // the same at every size
    return gemv_variant(
        vecmat,
        [vecmat](const float* A, const float* x, float* y, int rows, int cols) {
            const ColumnMajorGemv g = gemv_for_row_major(vecmat, rows, cols);
            const float one = 1.f, zero = 0.f;  // beta = 0: cuBLAS does not read y
            CUBLAS_CHECK(cublasSgemv(cublas_handle(), g.transpose ? CUBLAS_OP_T : CUBLAS_OP_N, g.m, g.n, &one, A, g.lda,
                                     x, 1, &zero, y, 1));
        },
        std::string("cublasSgemv(") + (transpose ? "OP_T" : "OP_N") + ") on the column-major view A^T", "");
}

using Launcher = void (*)(const float* A, const float* x, float* y, int rows, int cols, cudaStream_t stream);

std::function<Outcome(const Matrix&, RunContext&)> gemv_kernel(bool vecmat, Launcher f, std::string remark = "") {
    return gemv_variant(
        vecmat, [f](const float* A, const float* x, float* y, int rows, int cols) { f(A, x, y, rows, cols, 0); }, "",
        remark);
}

const char* const kUncoalesced = "a warp reads 32 rows at once (uncoalesced)";

}  // namespace

int main(int argc, char** argv) {
    LabOf<Matrix> lab = declare_lab<Matrix>(
        "matrix-vector products y = A x and y^T = x^T A: shared memory, coalescing, cuBLAS",
        // checked by default: 1 x 1, a row, a column, primes, non-multiples of 4, 32 and 256 both ways, a
        // square.
        {{{1, 1}, {1, 1000}, {1000, 1}, {7, 13}, {255, 257}, {999, 1000}, {1000, 1003}, {33, 10007},
          {10007, 33}, {2050, 6147}, {4096, 4096}},
         // --bench
         {{4096, 4096}, {16384, 16384}},
         // --quick: 67 x 130 and 600 x 64 take vecmat_shared's cluster path where the GPU has clusters.
         {{1, 1}, {1, 37}, {37, 1}, {67, 130}, {130, 68}, {600, 64}}},
        "MxN = a matrix of M rows and N columns (N alone: N x N); each at most 1073741824");
    lab.variants = {
        {"cublas_matvec", "cublasSgemv for y = A x (OP_T on the column-major view)", cublas_gemv(false), true},
        {"cublas_vecmat", "cublasSgemv for y^T = x^T A (OP_N on the column-major view)", cublas_gemv(true), true},
        {"matvec_naive", "y = A x, one thread per row", gemv_kernel(false, matvec_naive, kUncoalesced)},
        {"matvec_shared", "y = A x, one thread per row, x staged through shared memory",
         gemv_kernel(false, matvec_shared, kUncoalesced)},
        {"matvec_warp", "y = A x, one warp per row, float4 loads, shuffle reduction", gemv_kernel(false, matvec_warp)},
        {"vecmat_naive", "y^T = x^T A, one thread per column", gemv_kernel(true, vecmat_naive), false, "cublas_vecmat"},
        {"vecmat_shared", "y^T = x^T A, column strips, x staged through shared memory, rows split "
                          "(a cluster on compute capability 9.0+)",
         gemv_kernel(true, vecmat_shared), false, "cublas_vecmat"},
    };
    lab.ratio_to = "cuBLAS gemv of the same orientation at the same size (matvec rows: "
                   "cublas_matvec, vecmat rows: cublas_vecmat); the note gives the ratio to copy";
    lab.bench_targets = {{"matvec_warp", "4096x4096", 1.0, "cublas_matvec"},
                         {"matvec_warp", "16384x16384", 1.0, "cublas_matvec"},
                         {"vecmat_shared", "4096x4096", 0.95, "cublas_vecmat"},
                         {"vecmat_shared", "16384x16384", 1.0, "cublas_vecmat"},
                         {"matvec_warp", "16384x16384", 0.85, kCopyYardstick},
                         {"vecmat_shared", "16384x16384", 0.85, kCopyYardstick}};
    lab.parse = matvec_size;
    lab.device_bytes = [](const Matrix& m, const Options&) {
        return 4.0 * (static_cast<double>(m.rows) * m.cols + 2.0 * (m.rows + m.cols));
    };
    return run_lab(lab, argc, argv);
}
