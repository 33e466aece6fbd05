// Grading on several GPUs of one machine (`grading/grade --gpus LIST|all`): the list given on
// the command line, the devices it names (counted as CUDA counts them: within
// CUDA_VISIBLE_DEVICES when that is set), the value of CUDA_VISIBLE_DEVICES that pins a run to
// one of them, and the handing out of a class's submissions to one worker per GPU.
// Host-only: unit-tested with g++.
#pragma once
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "intake/command_line.h"  // GpuRequest

namespace grading {

// The entries of a CUDA_VISIBLE_DEVICES value ("2,3", "GPU-8f6e...,GPU-1a2b..."), trimmed;
// an empty value gives none (CUDA then shows no device).
std::vector<std::string> visible_device_entries(const std::string& value);

// The number of devices in the lab harness's message for a --device that does not exist
// ("... this machine has 2 CUDA device(s), numbered from 0"), or -1 when the text holds none.
int parse_device_count(const std::string& text);
// The UUID of each device that message lists ("(0: NAME, GPU-...; 1: NAME, GPU-...)"), by index;
// empty when it lists none (an older harness).
std::vector<std::string> parse_device_uuids(const std::string& text);

// The number of "GPU N: ..." lines of `nvidia-smi -L` (MIG instances, indented, not counted).
int count_nvidia_smi_gpus(const std::string& listing);

// The indices to grade on, checked against the `count` devices CUDA shows: all of them for
// "all", else the list as given. `visible` is the grader's CUDA_VISIBLE_DEVICES (nullptr when it
// is not set), named in the message. Throws cudalabs::UsageError for an index without a GPU
// (or "all" where there is none).
std::vector<int> resolve_gpus(const GpuRequest& request, int count, const char* visible);

// The CUDA_VISIBLE_DEVICES value that shows a run only device `index` (counted as CUDA counts
// them in the grader): the index itself, or the index-th entry of the grader's own
// CUDA_VISIBLE_DEVICES when that is set.
std::string pinned_device(int index, const char* visible);


// Hands the indices 0..count-1 to `workers` threads, each taking the next one whenever it is
// free (a faster GPU grades more); every index goes to exactly one call of grade(worker, index).
// With one worker everything runs on the calling thread, in order. When a call throws, no more
// indices are handed out, the calls under way finish, and the first exception is rethrown.
void distribute(size_t count, size_t workers, const std::function<void(size_t worker, size_t index)>& grade);

}  // namespace grading
