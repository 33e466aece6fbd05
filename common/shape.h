// Typed problem sizes. The command line gives a size as extents ("1000", "33x129", "64x64x3",
// args.h); a lab declares the shape it reads them as, and the harness parses every size once
// into it: the lab's variants receive a Length, a Matrix, a Volume or a shape of the lab's own
// (any struct with `static S parse(const Dims&)` that throws UsageError for what does not fit).
// Host-only: unit-tested with g++.
#pragma once
#include <string>

#include "args.h"

namespace cudalabs {

// Throws UsageError unless `dims` has min_count to max_count extents; `what` says what was
// expected ("one extent, N").
void require_extents(const Dims& dims, size_t min_count, size_t max_count, const std::string& what);
// Throws UsageError when an extent is larger than max_value; `what` says the limit and why.
void require_at_most(const Dims& dims, long long max_value, const std::string& what);

// "N": a count of elements.
struct Length {
    long long n = 0;
    static Length parse(const Dims& d, const std::string& what = "one extent, N");
};

// "ROWSxCOLS", or "N" for N x N.
struct Matrix {
    long long rows = 0, cols = 0;
    static Matrix parse(const Dims& d, const std::string& what = "N or ROWSxCOLS");
    // Exactly "ROWSxCOLS" (for labs whose two extents are different things).
    static Matrix parse_pair(const Dims& d, const std::string& what = "ROWSxCOLS");
    size_t count() const { return static_cast<size_t>(rows) * static_cast<size_t>(cols); }
};

// "DEPTHxROWSxCOLS".
struct Volume {
    long long depth = 0, rows = 0, cols = 0;
    static Volume parse(const Dims& d, const std::string& what = "DEPTHxROWSxCOLS");
    size_t count() const { return static_cast<size_t>(depth) * static_cast<size_t>(rows) * static_cast<size_t>(cols); }
};

}  // namespace cudalabs
