#include "validate.h"

#include <cstdio>

#include "random.h"  // mix64

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

uint64_t content_hash(const void* data, size_t bytes) {
    // Eight bytes at a time, each word mixed (random.h's SplitMix64 finaliser) into a running
    // state; the tail and the length go in last so that trailing zeros count.
    const unsigned char* p = static_cast<const unsigned char*>(data);
    uint64_t h = 0;
    size_t i = 0;
    for (; i + 8 <= bytes; i += 8) {
        uint64_t w;
        std::memcpy(&w, p + i, 8);
        h = mix64(h ^ w);
    }
    uint64_t tail = 0;
    std::memcpy(&tail, p + i, bytes - i);
    return mix64(mix64(h ^ tail) ^ static_cast<uint64_t>(bytes));
}

GuardDamage inspect_guard(const unsigned char* zone, bool after, size_t length) {
    GuardDamage d;
    for (size_t i = 0; i < length; ++i) {
        if (zone[i] == kGuardByte) continue;
        ++d.changed;
        const size_t distance = after ? i + 1 : length - i;
        if (d.nearest == 0 || distance < d.nearest) d.nearest = distance;
    }
    return d;
}

std::string guard_fault_message(const GuardDamage& damage, bool after, size_t count, size_t elem_size) {
    const size_t element = (damage.nearest + elem_size - 1) / elem_size;  // 1 = the next one
    std::string where = after ? "after the last element (index " + std::to_string(count - 1 + element) + ")"
                              : "before the first element (index -" + std::to_string(element) + ")";
    return "out-of-bounds write: " + std::to_string(damage.changed) + " byte" +
           (damage.changed == 1 ? "" : "s") + " changed just " + where + " of a " +
           std::to_string(count) + "-element buffer; check the bounds test of every store "
           "(i < n, not i <= n) and the grid size";
}

std::string input_fault_message(size_t count, size_t elem_size) {
    return "an input buffer (" + std::to_string(count) + " elements of " + std::to_string(elem_size) +
           " bytes) was changed: a kernel wrote where it should only read (are the input "
           "pointers const, and is the output pointer the right one?)";
}

}  // namespace cudalabs
