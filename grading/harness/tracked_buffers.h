// The buffers of the current case that the grading harness watches (from what the buffers report,
// common/run_hooks.h): the outputs each case poisons, which every timed repetition starts from
// poison and reads back (repetitions.cu) and which the grading shims tell apart from scratch
// memory; and the floating-point inputs of the run, which fresh repetitions change
// (fresh_inputs.h). Tracking is on only in graded and verifying runs.
#pragma once
#include <vector>

#include "buffers.h"

namespace cudalabs {

void enable_buffer_tracking(bool on);
void track_output(const OutputRegion& region);  // a region is tracked once: poisoned again, it moves
void untrack_output(const void* ptr);
std::vector<OutputRegion> tracked_outputs();
void clear_tracked_outputs();
// Ignored for scalar_bytes 0 (an input not made of floating-point scalars) and tracking off.
void track_input(const InputRegion& region);
void untrack_input(const void* ptr);
std::vector<InputRegion> tracked_inputs();

void poison_region(const OutputRegion& region);               // every byte, padding included
void download_region(const OutputRegion& region, void* host);  // rows packed: row_bytes * rows
// The elements at `at` (indices into the packed rows, `elem_bytes` each, repeats allowed), in that
// order, gathered on the device: only they are copied to the host, never the whole region (a
// timed repetition's sample of a large output).
std::vector<unsigned char> gather_region(const OutputRegion& region, size_t elem_bytes, const std::vector<size_t>& at);

}  // namespace cudalabs
