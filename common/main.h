// Everything a lab driver needs, in one include (the harness of the book's examples is also
// called main.h). Student files include only their lab's interface header.
#pragma once
#include "args.h"
#include "buffers.h"
#include "check.h"
#include "declare_lab.h"
#include "exit_codes.h"
#include "gpu.h"
#include "lab.h"
#include "random.h"
#include "report.h"
#include "stats.h"
#include "timing.h"
#include "validate.h"
