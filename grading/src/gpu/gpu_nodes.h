// The device nodes a run on one GPU is shown under bubblewrap: the NVIDIA driver's own nodes and
// that GPU's, none of another GPU's (as container runtimes show a container only its GPUs).
// Host-only: unit-tested with g++ on a stand-in driver folder.
//
// Why: a program that can open only its own GPU cannot reach a neighbour's timed run, and its
// CUDA start attaches to one GPU instead of every GPU of the machine. On a machine of two H200s,
// 32 such starts at once, 16 on each GPU, took 3.1 s instead of 3.75 s (medians of three).
#pragma once
#include <string>
#include <vector>

namespace grading {

// Where the driver describes each GPU (one folder per GPU, each with an "information" file
// holding "GPU UUID:" and "Device Minor:" lines), and where its nodes are.
inline constexpr const char* kNvidiaDriverGpus = "/proc/driver/nvidia/gpus";
inline constexpr const char* kDeviceFolder = "/dev";

// The minor number of the GPU with this UUID ("GPU-..."), as the driver's folder gives it
// (/dev/nvidiaN is its node); -1 when no GPU there has that UUID (a MIG instance's "MIG-..."
// UUID, another driver, no such folder).
int gpu_minor_number(const std::string& gpu_uuid, const std::string& driver_gpus = kNvidiaDriverGpus);

// Every node of `dev` whose name starts with "nvidia" (nvidiactl, nvidia-uvm, nvidia-uvm-tools,
// nvidia-modeset, nvidia-caps, nvidia-nvswitchN...) but the GPUs' own "nvidiaN", plus the one of
// this GPU, sorted. Empty when the GPU's minor is unknown or its node is missing: then a run
// sees the whole of /dev, as it would without this rule.
std::vector<std::string> gpu_device_nodes(const std::string& gpu_uuid, const std::string& driver_gpus = kNvidiaDriverGpus,
                                          const std::string& dev = kDeviceFolder);

}  // namespace grading
