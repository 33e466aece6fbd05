// Comparing a GPU result with a reference. Host-only: unit-tested with g++.
//
// Outputs are poisoned before a variant runs (every byte 0xFF, a NaN for float and double), so an
// element the kernel never wrote is told apart from one it wrote wrongly. NaN and Inf always fail.
#pragma once
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

namespace cudalabs {

constexpr unsigned char kPoisonByte = 0xFF;

template <class T>
bool is_poison(const T& value) {
    unsigned char bytes[sizeof(T)];
    std::memcpy(bytes, &value, sizeof(T));
    for (unsigned char b : bytes)
        if (b != kPoisonByte) return false;
    return true;
}

template <class T>
void poison_fill(T* data, size_t count) {
    std::memset(static_cast<void*>(data), kPoisonByte, count * sizeof(T));
}

// What an element is, for code that compares elements it holds only as bytes (a checked
// output as RunHooks::output_checked sees it).
enum class ElementKind { Float32, Float64, Int32, UInt32, Other };
template <class T>
constexpr ElementKind element_kind() {
    return std::is_same<T, float>::value      ? ElementKind::Float32
           : std::is_same<T, double>::value   ? ElementKind::Float64
           : std::is_same<T, int>::value      ? ElementKind::Int32
           : std::is_same<T, unsigned>::value ? ElementKind::UInt32
                                              : ElementKind::Other;
}

// An element passes when |got - expected| <= abs + rel * |expected|.
struct Tolerance {
    double abs = 0;
    double rel = 0;

    // Exact operations done once per element (a + b, a copy): a few units of rounding.
    static Tolerance elementwise(double unit_roundoff);
    // A result accumulated from `terms` products whose magnitudes are about `term_magnitude`
    // (a dot product, a row of a matrix product). Rounding errors of a sum grow like
    // sqrt(terms) for random data and like `terms` at worst; we allow 4*sqrt(terms) + 4 units,
    // which a correct float kernel meets at any order of summation and a wrong index does not.
    static Tolerance accumulation(size_t terms, double unit_roundoff, double term_magnitude);
};

constexpr double kFloatRoundoff = 5.96e-8;    // 2^-24
constexpr double kDoubleRoundoff = 1.11e-16;  // 2^-53

struct Mismatch {
    size_t index = 0;
    double got = 0;
    double expected = 0;
};

struct CheckResult {
    size_t checked = 0;
    size_t unwritten = 0;      // still poison
    size_t nonfinite = 0;      // NaN or Inf that is not poison
    size_t mismatches = 0;     // finite but out of tolerance (includes nonfinite)
    size_t first_unwritten = 0;
    bool has_worst = false;
    Mismatch worst;            // largest error among the failing elements
    std::vector<Mismatch> first;  // the first few failing elements, in index order
    double max_abs_error = 0;  // over the written, finite elements
    Tolerance tolerance;

    bool ok() const { return checked > 0 && unwritten == 0 && mismatches == 0; }
    bool never_written() const { return checked > 0 && unwritten == checked; }
};

// Compares `count` elements. `shape` (rows, cols) or (depth, rows, cols) formats indices in
// messages; leave it empty for a flat array.
template <class T, class R>
CheckResult check_values(const T* got, const R* expected, size_t count, Tolerance tol,
                         size_t max_reported = 5) {
    CheckResult res;
    res.tolerance = tol;
    res.checked = count;
    double worst_excess = -1;
    for (size_t i = 0; i < count; ++i) {
        if (is_poison(got[i])) {
            if (res.unwritten++ == 0) res.first_unwritten = i;
            continue;
        }
        double g = static_cast<double>(got[i]);
        double e = static_cast<double>(expected[i]);
        double err = std::fabs(g - e);
        bool finite = std::isfinite(g);
        if (finite && err > res.max_abs_error) res.max_abs_error = err;
        double limit = tol.abs + tol.rel * std::fabs(e);
        if (finite && err <= limit) continue;
        if (!finite) ++res.nonfinite;
        ++res.mismatches;
        double excess = finite ? err / (limit > 0 ? limit : 1e-300) : INFINITY;
        if (excess > worst_excess) {
            worst_excess = excess;
            res.worst = {i, g, e};
            res.has_worst = true;
        }
        if (res.first.size() < max_reported) res.first.push_back({i, g, e});
    }
    return res;
}

// "[12]", "[3,4]" (row, col) or "[1,3,4]".
std::string format_index(size_t flat, const std::vector<size_t>& shape);

// One line that says what went wrong, or "" when res.ok().
std::string describe_failure(const CheckResult& res, const std::vector<size_t>& shape = {});

// ---- writes where a kernel should not write (see DeviceBuffer in buffers.h) -------------------
// With --guard-buffers, device buffers carry guard zones of kGuardBytes bytes before their
// elements and at least that after them, filled with kGuardByte; a changed byte there is an
// out-of-bounds write.
constexpr size_t kGuardBytes = 256;  // keeps the elements 256-byte aligned, as cudaMalloc does
constexpr unsigned char kGuardByte = 0xA5;

// A 64-bit hash of `bytes` bytes, to tell whether a buffer changed (not cryptographic).
uint64_t content_hash(const void* data, size_t bytes);

// Bytes of `zone` (`length` bytes) that are not kGuardByte, and the distance from the
// elements of the changed byte nearest them (1 = adjacent), for the message below.
struct GuardDamage {
    size_t changed = 0;
    size_t nearest = 0;
};
// `after`: the zone after the last element (its byte 0 is adjacent); else the one before the
// first (its last byte is adjacent).
GuardDamage inspect_guard(const unsigned char* zone, bool after, size_t length = kGuardBytes);

// The messages a failing case shows, for a buffer of `count` elements of `elem_size` bytes.
std::string guard_fault_message(const GuardDamage& damage, bool after, size_t count, size_t elem_size);
std::string input_fault_message(size_t count, size_t elem_size);

}  // namespace cudalabs
