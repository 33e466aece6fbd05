// Lab 02 -- 2D arrays with a pitch. Your work goes in this file: complete every TODO(lab02).
// Build and run:   make lab02 && ./lab02
// The driver checks every variant at several shapes (1x1, one row, one column, widths that are
// not a multiple of the block or of the pitch alignment) and times it.
#include "pitched_2d.h"

// ---------------------------------------------------------------------------------------------
// Part 1: a 2D kernel on a pitched matrix.
// cudaMallocPitch pads every row so that each row starts on an aligned address; `pitch` is the
// distance in BYTES from one row to the next. Row r of a float matrix therefore starts at
//     (float*)((char*)base + r * pitch)
// and element (r, c) is that row pointer + c. Index rows with the pitch, never with width.
// Use 2D blocks (dim3 block(32, 8): 32 threads along a row, so a warp reads 128 contiguous
// bytes) and a 2D grid that covers the whole matrix; threads past the last column or the last
// row must do nothing -- a write past the last column lands in the padding, where no check and
// no tool would ever see it (this driver does look).

// handout:begin pitched
__global__ void add_scaled_kernel(const float* a, const float* b, float* c, size_t pitch,
                                  int width, int height, float alpha) {
    // TODO(lab02) pitched (about 5 lines): compute col (x) and row (y) of this thread; if both are inside the
    // matrix, find the three row pointers through the pitch and set c = alpha * a + b.
}

void add_scaled_pitched(const float* a, const float* b, float* c, size_t pitch, int width,
                        int height, float alpha, cudaStream_t stream) {
    // TODO(lab02) pitched (about 4 lines): launch add_scaled_kernel on `stream` with dim3 blocks of 32x8 threads
    // and a dim3 grid of ceil(width/32) x ceil(height/8) blocks, then CHECK_LAUNCH().
    // (gridDim.y is limited to 65535 blocks: for taller matrices, loop over rows in the kernel.)
}
// handout:end pitched
//
// Passing needs one element per thread. The --bench target (0.85 of the copy bandwidth) needs
// more bytes in flight per thread: since every pitched row starts 16-byte aligned, a thread can
// handle four columns with one float4 load per matrix (and the last width % 4 columns one by one).

// ---------------------------------------------------------------------------------------------
// Part 2: a packed matrix is the special case whose pitch is exactly width * sizeof(float).

// handout:begin packed
void add_scaled_packed(const float* a, const float* b, float* c, int width, int height,
                       float alpha, cudaStream_t stream) {
    // TODO(lab02) packed (about 1 line): reuse add_scaled_pitched with the pitch of a packed matrix.
}
// handout:end packed

// ---------------------------------------------------------------------------------------------
// Part 3: the host round trip. cudaMemcpy2D copies `height` rows of `width_bytes` bytes between
// two layouts with different pitches (the host matrix is packed: its pitch is width_bytes).

// handout:begin host
void add_scaled_host(const float* a, const float* b, float* c, int width, int height, float alpha) {
    // TODO(lab02) host (about 15 lines): the whole round trip.
    //  1. cudaMallocPitch three device matrices (the pitch comes back through a size_t*);
    //  2. cudaMemcpy2D a and b to the device: dst pitch = the device pitch, src pitch = width
    //     * sizeof(float), width in BYTES, height in rows, cudaMemcpyHostToDevice;
    //  3. add_scaled_pitched(..., 0);
    //  4. cudaMemcpy2D c back (cudaMemcpyDeviceToHost), then cudaFree the three matrices.
    // Wrap every CUDA call in CUDA_CHECK(...).
}
// handout:end host
