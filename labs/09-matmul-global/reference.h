// Lab 09's CPU reference: the double-precision product of common/matrix.h (shared by labs 09 to
// 12, unit-tested there). Host-only.
#pragma once
#include "matrix.h"
