// Lab 07's CPU reference and the memory-transaction arithmetic behind its explanations.
// Host-only: unit-tested with g++.
#pragma once
#include <cstddef>
#include <cstdint>
#include <set>

// p' = scale * p + shift for one component, rounded once (the GPU fuses the multiply-add).
inline float affine_reference(float p, float scale, float shift) {
    return static_cast<float>(static_cast<double>(scale) * p + static_cast<double>(shift));
}

// How many distinct `sector`-byte memory sectors one warp-wide load touches when lane l reads
// `access_bytes` bytes at first_byte + l * stride_bytes. A fully coalesced 4-byte load touches
// 4 sectors of 32 bytes (128 bytes); every extra sector is traffic nobody asked for.
inline size_t sectors_touched(size_t first_byte, size_t stride_bytes, size_t access_bytes,
                              size_t lanes = 32, size_t sector = 32) {
    std::set<size_t> sectors;
    for (size_t l = 0; l < lanes; ++l) {
        const size_t begin = first_byte + l * stride_bytes, end = begin + access_bytes;
        for (size_t s = begin / sector; s * sector < end; ++s) sectors.insert(s);
    }
    return sectors.size();
}

// Bytes a warp asked for / bytes of the sectors it touched (1.0 = perfectly coalesced).
inline double load_efficiency(size_t first_byte, size_t stride_bytes, size_t access_bytes,
                              size_t lanes = 32, size_t sector = 32) {
    const size_t touched = sectors_touched(first_byte, stride_bytes, access_bytes, lanes, sector);
    return static_cast<double>(lanes * access_bytes) / static_cast<double>(touched * sector);
}
