// Lab 11's CPU reference: the double-precision product of labs/products/matrix_product.h with
// B = A read transposed (shared by labs 09 to 12, unit-tested there), and the sizes the lab
// accepts. Host-only.
#pragma once
#include "../products/matrix_product.h"

// "N": A is N x N; "NxK": A is N x K. As a product: C (N x N) = A (N x K) * A^T, so the
// product's M and N are both N and its K is K. Throws UsageError.
inline cudalabs::GemmDims aat_size(const cudalabs::Dims& d) {
    using cudalabs::UsageError;
    if (d.size() > 2)
        throw UsageError("size '" + cudalabs::format_dims(d) + "' does not fit this lab: expected N or NxK (A is N x K)");
    try {
        return cudalabs::GemmDims::parse({d[0], d[0], d.size() == 2 ? d[1] : d[0]});
    } catch (const UsageError&) {
        throw UsageError("size '" + cudalabs::format_dims(d) + "' is too large: N may be at most 1048560 and "
                         "A and C at most 2147483647 elements each (the kernels index with int)");
    }
}
