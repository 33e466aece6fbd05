// Fresh inputs for every timed repetition (the grader's runs, --fresh-inputs KEY).
//
// Before each timed repetition (warm-up included) the harness flips the sign of a keyed random
// half of every floating-point input, and always of at least one scalar of it (buffers.h:
// InputRegion). A sign flip is exact and keeps every magnitude, so each tolerance still holds,
// while the result changes everywhere. After the repetition it sends a keyed sample of each
// output (every element of a small one); the verifier makes the same flips, runs the reference,
// and compares the samples. A result that is cached, replayed or computed ahead of time is then
// wrong by construction, and the key, which the program's own code never sees, decides which
// elements are looked at. After the last repetition the inputs are flipped back, so later cases
// see what was uploaded.
//
// Shared by the grader's harness (grading/harness/, linked only into the programs the grader
// builds), which makes the flips and sends the samples, and the grader's judge, which asks the
// verifier for the same. Host parts here are inline (unit-tested with g++); flip_input_signs is in
// grading/harness/fresh_inputs.cu.
#pragma once
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "random.h"
#include "validate.h"

namespace cudalabs {

struct InputRegion;

// The start of every fault that a fresh repetition gives (FreshVerification, repetitions.cu).
// The grader (judge.cpp) reads a row that fails with it as a result that did not follow its
// inputs: right for the inputs it was checked with, not for new ones.
constexpr char kFreshInputsFault[] = "a timed repetition, given new input values, ";

// Elements of each output sent after a repetition: all of them up to this many.
constexpr size_t kFreshSamples = 65536;

// The key of repetition `rep` of a case (never 0: 0 means "no flips").
inline uint64_t repetition_key(uint64_t run_key, const std::string& case_key, int rep) {
    uint64_t h = mix64(run_key);
    for (unsigned char c : case_key) h = mix64(h ^ c);
    h = mix64(h ^ (static_cast<uint64_t>(rep) * 0xD6E8FEB86659FD93ull));
    return h ? h : 1;
}

// The elements of output `k` (of `count`) that repetition key `key` samples: every element when
// there are at most kFreshSamples, else kFreshSamples drawn at random (repeats allowed).
inline std::vector<size_t> sample_positions(uint64_t key, int k, size_t count) {
    std::vector<size_t> at;
    if (count <= kFreshSamples) {
        at.resize(count);
        for (size_t i = 0; i < count; ++i) at[i] = i;
        return at;
    }
    at.resize(kFreshSamples);
    const uint64_t base = mix64(key ^ (static_cast<uint64_t>(k) + 1) * 0x9E3779B97F4A7C15ull);
    for (size_t i = 0; i < kFreshSamples; ++i) at[i] = static_cast<size_t>(mix64(base + i) % count);
    return at;
}

// How a program's sampled elements compare with the reference's at the same places.
enum class SampleVerdict { Agree, Unwritten, Wrong };

// Both results carry their own rounding, so each may be `tol` from the exact value: the bound is
// twice the tolerance, taken against the largest magnitude in the sample (a sum of flipped terms
// can cancel to near zero, where a relative bound alone would fail a correct kernel that rounds
// differently). A replayed or stale result misses by the size of the values. `detail`, when
// given, names the first element that does not agree. The grader's feedback says only the
// verdict: the places and values follow from the run's key, and feedback must not change with it.
template <class T>
SampleVerdict compare_samples(const T* got, const T* reference, const std::vector<size_t>& at, Tolerance tol,
                              std::string* detail = nullptr) {
    double scale = 0;
    for (size_t i = 0; i < at.size(); ++i)
        if (std::isfinite(static_cast<double>(reference[i])))
            scale = std::fmax(scale, std::fabs(static_cast<double>(reference[i])));
    const double limit = 2 * (tol.abs + tol.rel * scale);
    for (size_t i = 0; i < at.size(); ++i) {
        const bool unwritten = is_poison(got[i]);
        const double g = static_cast<double>(got[i]), r = static_cast<double>(reference[i]);
        if (!unwritten && std::isfinite(g) && std::fabs(g - r) <= limit) continue;
        if (detail)
            *detail = "element [" + std::to_string(at[i]) + "] " +
                      (unwritten ? std::string("was never written")
                                 : "is " + std::to_string(g) + " where " + std::to_string(r) + " was expected");
        return unwritten ? SampleVerdict::Unwritten : SampleVerdict::Wrong;
    }
    return SampleVerdict::Agree;
}

// compare_samples for elements known only by their kind and size (RunContext's checked outputs).
inline SampleVerdict compare_sample_bytes(ElementKind kind, size_t elem_bytes, const void* got, const void* reference,
                                          const std::vector<size_t>& at, Tolerance tol) {
    switch (kind) {
        case ElementKind::Float32: return compare_samples(static_cast<const float*>(got), static_cast<const float*>(reference), at, tol);
        case ElementKind::Float64: return compare_samples(static_cast<const double*>(got), static_cast<const double*>(reference), at, tol);
        case ElementKind::Int32: return compare_samples(static_cast<const int*>(got), static_cast<const int*>(reference), at, tol);
        case ElementKind::UInt32:
            return compare_samples(static_cast<const unsigned*>(got), static_cast<const unsigned*>(reference), at, tol);
        case ElementKind::Other: break;
    }
    // Anything else must come out bit for bit.
    const auto* g = static_cast<const unsigned char*>(got);
    const auto* r = static_cast<const unsigned char*>(reference);
    for (size_t i = 0; i < at.size(); ++i)
        if (std::memcmp(g + i * elem_bytes, r + i * elem_bytes, elem_bytes) != 0) {
            bool poison = true;
            for (size_t b = 0; b < elem_bytes; ++b) poison = poison && g[i * elem_bytes + b] == kPoisonByte;
            return poison ? SampleVerdict::Unwritten : SampleVerdict::Wrong;
        }
    return SampleVerdict::Agree;
}

// On the device: flips the sign of the scalars of `region` chosen by `undo_key` (the flips of
// the previous repetition, taken back) and by `apply_key` (this repetition's); a key of 0 flips
// nothing. `salt` tells the regions of one case apart. Waits for nothing.
void flip_input_signs(const InputRegion& region, uint64_t salt, uint64_t undo_key, uint64_t apply_key);

}  // namespace cudalabs
