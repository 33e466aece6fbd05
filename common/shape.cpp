#include "shape.h"

namespace cudalabs {

void require_extents(const Dims& dims, size_t min_count, size_t max_count, const std::string& what) {
    if (dims.size() < min_count || dims.size() > max_count)
        throw UsageError("size '" + format_dims(dims) + "' does not fit this lab: expected " + what);
}

void require_at_most(const Dims& dims, long long max_value, const std::string& what) {
    for (long long d : dims)
        if (d > max_value) throw UsageError("size '" + format_dims(dims) + "' is too large: " + what);
}

Length Length::parse(const Dims& d, const std::string& what) {
    require_extents(d, 1, 1, what);
    return {d[0]};
}

Matrix Matrix::parse(const Dims& d, const std::string& what) {
    require_extents(d, 1, 2, what);
    return {d[0], d.size() == 2 ? d[1] : d[0]};
}

Matrix Matrix::parse_pair(const Dims& d, const std::string& what) {
    require_extents(d, 2, 2, what);
    return {d[0], d[1]};
}

Volume Volume::parse(const Dims& d, const std::string& what) {
    require_extents(d, 3, 3, what);
    return {d[0], d[1], d[2]};
}

}  // namespace cudalabs
