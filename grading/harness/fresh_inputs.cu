// The device half of fresh_inputs.h: one grid-stride kernel that XORs the sign bit of the
// chosen scalars of an input region.
#include <algorithm>

#include "buffers.h"
#include "check.h"
#include "fresh_inputs.h"

namespace cudalabs {
namespace {

__device__ uint64_t mix64_device(uint64_t x) {  // random.h's mix64, on the device
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

// A keyed random half of the scalars, and always the one at a keyed place (of `total`): even an
// input of one element differs from the checked one in every repetition.
__device__ bool chosen(uint64_t key, uint64_t salt, uint64_t index, uint64_t total) {
    if (key == 0) return false;
    const uint64_t h = mix64_device(key ^ salt);
    return index == mix64_device(h ^ 0xA0761D6478BD642Full) % total || (mix64_device(h + index) & 1);
}

__global__ void cudalabs_fresh_input_signs(char* base, size_t pitch, size_t scalars_per_row, size_t rows,
                                           unsigned scalar_bytes, uint64_t salt, uint64_t undo_key,
                                           uint64_t apply_key) {
    const size_t total = scalars_per_row * rows;
    for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < total;
         i += static_cast<size_t>(gridDim.x) * blockDim.x) {
        if (chosen(undo_key, salt, i, total) == chosen(apply_key, salt, i, total)) continue;
        char* row = base + (i / scalars_per_row) * pitch;
        const size_t col = i % scalars_per_row;
        if (scalar_bytes == 8) reinterpret_cast<unsigned long long*>(row)[col] ^= 1ull << 63;
        else reinterpret_cast<unsigned*>(row)[col] ^= 1u << 31;
    }
}

}  // namespace

void flip_input_signs(const InputRegion& region, uint64_t salt, uint64_t undo_key, uint64_t apply_key) {
    const size_t per_row = region.row_bytes / region.scalar_bytes;
    if (per_row == 0 || region.rows == 0 || (undo_key == 0 && apply_key == 0)) return;
    const size_t total = per_row * region.rows;
    const unsigned blocks = static_cast<unsigned>(std::min<size_t>((total + 255) / 256, 4096));
    cudalabs_fresh_input_signs<<<blocks, 256>>>(region.ptr, region.pitch, per_row, region.rows,
                                                static_cast<unsigned>(region.scalar_bytes), salt, undo_key, apply_key);
    CHECK_LAUNCH();
}

}  // namespace cudalabs
