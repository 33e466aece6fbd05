// Lab 12's CPU reference: the double-precision product of labs/products/matrix_product.h (shared by labs 09 to
// 12, unit-tested there). Host-only.
#pragma once
#include "../products/matrix_product.h"
