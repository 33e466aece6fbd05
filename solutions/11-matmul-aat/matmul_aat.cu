// Lab 11 -- C = A * A^T: reference solution.
#include "matmul_aat.h"

// handout:begin unpadded
// Block (bx, by) computes the Tile x Tile block of C at rows by*Tile.., columns bx*Tile...
// C[i][j] needs row i and row j of A, so both shared tiles are cut from rows of A:
//   as[ty][tx]  = A[by*Tile + ty][p0 + tx]   (the rows of this block of C)
//   ats[ty][tx] = A[bx*Tile + ty][p0 + tx]   (the rows that become the columns of C)
// Both loads are coalesced. The sum reads ats[tx][p]: the threads of a warp (consecutive tx)
// read a column of ats, words Tile + Pad apart. With Pad = 0 and Tile = 32 that is one bank
// for the whole warp: a 32-way conflict. With Tile = 16 a warp holds two rows of the block that
// read the same 16 words (a broadcast), 8 distinct words in each of two banks: 8-way, on the
// book's Fermi C2070 too (its 16-way counts a half-warp on the 16 banks of compute capability
// 1.x). Pad = 1 puts them in different banks.
template <int Tile, int Pad>
__global__ void aat_kernel(const float* a, float* c, int n, int k) {
    __shared__ float as[Tile][Tile];
    __shared__ float ats[Tile][Tile + Pad];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * Tile + ty;   // row of C this thread computes
    const int col = blockIdx.x * Tile + tx;   // column of C
    const int trow = blockIdx.x * Tile + ty;  // the row of A this thread loads into ats
    float sum = 0;
    for (int p0 = 0; p0 < k; p0 += Tile) {
        const bool in_k = p0 + tx < k;
        as[ty][tx] = (row < n && in_k) ? a[row * k + p0 + tx] : 0.0f;
        ats[ty][tx] = (trow < n && in_k) ? a[trow * k + p0 + tx] : 0.0f;
        __syncthreads();
#pragma unroll
        for (int p = 0; p < Tile; ++p) sum += as[ty][p] * ats[tx][p];  // as: broadcast; ats: column
        __syncthreads();
    }
    if (row < n && col < n) c[row * n + col] = sum;
}

template <int Tile, int Pad>
void launch_aat(const float* a, float* c, int n, int k, cudaStream_t stream) {
    const dim3 block(Tile, Tile);
    const dim3 grid((n + Tile - 1) / Tile, (n + Tile - 1) / Tile);
    aat_kernel<Tile, Pad><<<grid, block, 0, stream>>>(a, c, n, k);
    CHECK_LAUNCH();
}

void aat_unpadded(const float* a, float* c, int n, int k, cudaStream_t stream) {
    launch_aat<32, 0>(a, c, n, k, stream);
}
// handout:end unpadded

// handout:begin padded
void aat_padded(const float* a, float* c, int n, int k, cudaStream_t stream) {
    launch_aat<32, 1>(a, c, n, k, stream);
}
// handout:end padded

// handout:begin unpadded16
void aat_unpadded16(const float* a, float* c, int n, int k, cudaStream_t stream) {
    launch_aat<16, 0>(a, c, n, k, stream);  // the book's 16 x 16 tiles
}
// handout:end unpadded16

// handout:begin padded16
void aat_padded16(const float* a, float* c, int n, int k, cudaStream_t stream) {
    launch_aat<16, 1>(a, c, n, k, stream);
}
// handout:end padded16
