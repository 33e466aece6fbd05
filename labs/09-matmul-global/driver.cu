// Lab 09 driver: owns main(), the data, the check and the timing. Do not edit: your work goes
// in matmul_global.cu.
#include <algorithm>
#include <limits>
#include <vector>

#include "main.h"
#include "matmul_global.h"
#include "reference.h"

using namespace cudalabs;

namespace {

// The struct variants see padded rows (kRowPadding, reference.h), as for a sub-matrix or a row
// pitch, so a kernel that steps rows by the width instead of the stride reads and writes the
// wrong elements and fails the check. The padding of A and B holds NaN, so reading it shows too.
// (::Matrix is the lab's struct, matmul_global.h; cudalabs::Matrix is a size.)
template <class T>
struct PaddedMatrix {
    DeviceBuffer<T> buffer;
    ::Matrix<T> view;
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
    m.view = ::Matrix<T>{cols, rows, stride, m.buffer.data()};
    return m;
}

// The struct product: A, B and C with padded rows; C's rows are unpadded on the host for the
// check (its padding must stay poisoned: a write there is a write out of the matrix).
template <class T>
Outcome run_struct(const GemmDims& g, RunContext& ctx) {
    const Product<T>& p = product_of<T>(g, ctx, {});
    PaddedMatrix<T> a = padded_input(p.a.data(), g.m, g.k);
    PaddedMatrix<T> b = padded_input(p.host_b(), g.k, g.n);
    const int c_stride = g.n + kRowPadding;
    DeviceBuffer<T> dc(static_cast<size_t>(g.m) * c_stride);
    const ::Matrix<T> c{g.n, g.m, c_stride, dc.data()};
    dc.poison();

    Outcome out;
    out.flops = gemm_flops(g);
    count_for_roofline(out, p);  // the padding of the rows is not the problem's
    out.note = "rows padded: stride = width + " + std::to_string(kRowPadding);
    ctx.run_checked(
        out, [&] { matmul_struct(a.view, b.view, c, 0); },
        [&] {
            std::vector<T> padded(dc.size()), dense(p.c_count());
            dc.download(padded.data());
            bool padding_written = false;
            for (int r = 0; r < g.m; ++r) {
                const T* row = padded.data() + static_cast<size_t>(r) * c_stride;
                std::copy(row, row + g.n, dense.begin() + static_cast<size_t>(r) * g.n);
                for (int j = g.n; j < c_stride; ++j) padding_written |= !is_poison(row[j]);
            }
            check_product(ctx, out, p, dense.data());
            if (padding_written && out.failure.empty())
                out.failure = "C's row padding (elements between width and stride) was written: step rows by the stride";
        },
        gemm_bytes(g, sizeof(T)));
    return out;
}

}  // namespace

int main(int argc, char** argv) {
    LabOf<GemmDims> lab = declare_float_and_double_product_lab(
        "matrix product from global memory: flat and struct styles, float and double, coalescing",
        {
            {"flat", "one thread per element of C, index arithmetic, float", product_kernel<float>(matmul_flat)},
            {"flat_double", "the same kernel template in double (ratio to cublasDgemm)",
             product_kernel<double>(matmul_flat), false, "dcublas", "double"},
            {"struct", "Matrix {width, height, stride, elements} with accessors, float", run_struct<float>},
            {"struct_double", "the struct kernel in double (ratio to cublasDgemm)", run_struct<double>, false,
             "dcublas", "double"},
            {"uncoalesced", "threadIdx.x down a column of C: uncoalesced loads and stores",
             product_kernel<float>(matmul_uncoalesced)},
        });
    lab.parse = matmul_global_size;
    return run_lab(lab, argc, argv);
}
