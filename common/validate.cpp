#include "validate.h"

#include <cstdio>

namespace cudalabs {

Tolerance Tolerance::elementwise(double unit_roundoff) {
    return {4 * unit_roundoff, 4 * unit_roundoff};
}

Tolerance Tolerance::accumulation(size_t terms, double unit_roundoff, double term_magnitude) {
    double units = 4.0 * std::sqrt(static_cast<double>(terms)) + 4.0;
    return {units * unit_roundoff * term_magnitude * std::sqrt(static_cast<double>(terms)),
            units * unit_roundoff};
}

std::string format_index(size_t flat, const std::vector<size_t>& shape) {
    if (shape.size() < 2) return "[" + std::to_string(flat) + "]";
    std::vector<size_t> idx(shape.size());
    for (size_t d = shape.size(); d-- > 0;) {
        idx[d] = flat % shape[d];
        flat /= shape[d];
    }
    std::string out = "[";
    for (size_t d = 0; d < idx.size(); ++d) out += (d ? "," : "") + std::to_string(idx[d]);
    return out + "]";
}

namespace {
std::string number(double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.7g", v);
    return buf;
}
}  // namespace

std::string describe_failure(const CheckResult& res, const std::vector<size_t>& shape) {
    if (res.ok()) return "";
    if (res.checked == 0) return "nothing was checked";
    if (res.never_written()) return "output never written";
    std::string out;
    if (res.unwritten) {
        out += std::to_string(res.unwritten) + " of " + std::to_string(res.checked) +
               " outputs never written (first at " + format_index(res.first_unwritten, shape) +
               ")";
    }
    if (res.mismatches) {
        if (!out.empty()) out += "; ";
        out += std::to_string(res.mismatches) + " wrong";
        if (res.nonfinite) out += " (" + std::to_string(res.nonfinite) + " NaN/Inf)";
        const Mismatch& w = res.worst;
        double limit = res.tolerance.abs + res.tolerance.rel * std::fabs(w.expected);
        out += "; worst at " + format_index(w.index, shape) + ": got " + number(w.got) +
               ", expected " + number(w.expected) + " (tolerance " + number(limit) + ")";
        if (res.first.size() > 1 || res.first.at(0).index != w.index) {
            out += "; first at";
            for (const Mismatch& m : res.first) out += " " + format_index(m.index, shape);
        }
    }
    return out;
}

}  // namespace cudalabs
