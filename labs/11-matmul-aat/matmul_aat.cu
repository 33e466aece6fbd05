// Lab 11 -- C = A * A^T. Your work goes in this file: complete every TODO(lab11).
// Build and run:   make lab11 && ./lab11          (one variant: ./lab11 --variant unpadded)
// The driver checks every variant (1 x 1, primes, non-multiples of the tile, n != k) and
// reports GFLOP/s = 2*n*n*k / time as a ratio to cuBLAS computing the same product.
//
// A is n x k, row-major; C = A * A^T is n x n: C[i][j] = sum over p of A[i][p] * A[j][p].
#include "matmul_aat.h"

// ---------------------------------------------------------------------------------------------
// Block (bx, by) computes the Tile x Tile block of C at rows by*Tile.., columns bx*Tile...
// C[i][j] needs row i and row j of A, so both shared tiles are cut from rows of A; for each
// step p0 = 0, Tile, 2*Tile... along k:
//   as[ty][tx]  = A[by*Tile + ty][p0 + tx]   (rows of this block of C)
//   ats[ty][tx] = A[bx*Tile + ty][p0 + tx]   (rows of A that are columns of A^T)
//   __syncthreads(); sum += as[ty][p] * ats[tx][p] for p < Tile; __syncthreads();
// (0 past the edges of A; store C[row][col] only inside C.)
// The threads of a warp have consecutive tx: which banks hold ats[tx][p] for tx = 0..31 when a
// tile row is Tile words long, and when it is Tile + 1?

// handout:begin unpadded
template <int Tile, int Pad>
__global__ void aat_kernel(const float* a, float* c, int n, int k) {
    // TODO(lab11) unpadded (about 20 lines): declare the tiles (Pad = 0 gives the unpadded variants, Pad = 1
    // the padded ones):
    //   __shared__ float as[Tile][Tile];
    //   __shared__ float ats[Tile][Tile + Pad];
    // then the loop above and the store of C[row][col].
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
    // TODO(lab11) padded (about 1 line): launch_aat<32, 1>. Target: at least twice as fast as unpadded.
}
// handout:end padded

// handout:begin unpadded16
void aat_unpadded16(const float* a, float* c, int n, int k, cudaStream_t stream) {
    // TODO(lab11) unpadded16 (about 1 line): the book's 16 x 16 tiles, launch_aat<16, 0>. A warp now holds
    // two rows of the block: how many ways does its read of ats conflict?
}
// handout:end unpadded16

// handout:begin padded16
void aat_padded16(const float* a, float* c, int n, int k, cudaStream_t stream) {
    // TODO(lab11) padded16 (about 1 line): launch_aat<16, 1>.
}
// handout:end padded16
