// Seeded, order-independent random inputs: element i depends only on (seed, stream, i), so a
// CPU reference, a sampled check or another program regenerates any element without the array.
#pragma once
#include <cstddef>
#include <cstdint>

namespace cudalabs {

// SplitMix64's finaliser: a good 64-bit mix, cheap enough for hundreds of millions of elements.
inline uint64_t mix64(uint64_t x) {
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

// Uniform in [lo, hi), with 24 random bits (exact in float).
inline float random_uniform(uint64_t seed, uint64_t stream, uint64_t index, float lo = -1.f,
                            float hi = 1.f) {
    uint64_t bits = mix64(mix64(seed ^ (stream * 0xD1B54A32D192ED03ull)) + index);
    float unit = static_cast<float>(bits >> 40) * (1.0f / 16777216.0f);
    return lo + (hi - lo) * unit;
}

template <class T>
void fill_uniform(T* data, size_t count, uint64_t seed, uint64_t stream, float lo = -1.f,
                  float hi = 1.f) {
    for (size_t i = 0; i < count; ++i)
        data[i] = static_cast<T>(random_uniform(seed, stream, i, lo, hi));
}

}  // namespace cudalabs
