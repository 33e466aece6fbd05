// The GPU's clocks and why they are held down (NVML's clock event reasons, once called throttle
// reasons), read before and after every timed run of a performance test, so that a run slowed by
// the GPU's power or heat limits is run again and every timing says what the GPU was doing.
// Read through NVML loaded at run time (dlopen), else `nvidia-smi`; where neither answers, the
// clocks are unknown: never an error. The parsing and the reasons' meaning are host-only,
// unit-tested with g++.
#pragma once
#include <memory>
#include <string>
#include <vector>

namespace grading {

// NVML's clock event reason bits (nvml.h, nvmlClocksEventReason*).
constexpr unsigned long long kClockReasonGpuIdle = 0x1;
constexpr unsigned long long kClockReasonApplicationsClocks = 0x2;
constexpr unsigned long long kClockReasonSwPowerCap = 0x4;
constexpr unsigned long long kClockReasonHwSlowdown = 0x8;
constexpr unsigned long long kClockReasonSyncBoost = 0x10;
constexpr unsigned long long kClockReasonSwThermal = 0x20;
constexpr unsigned long long kClockReasonHwThermal = 0x40;
constexpr unsigned long long kClockReasonHwPowerBrake = 0x80;
constexpr unsigned long long kClockReasonDisplayClocks = 0x100;
// The reasons that mean the GPU slowed itself for power or heat: a run timed under them is not
// the program's speed. Idle, application or display clock settings and sync boost are not.
constexpr unsigned long long kPowerOrHeatReasons =
    kClockReasonSwPowerCap | kClockReasonHwSlowdown | kClockReasonSwThermal | kClockReasonHwThermal | kClockReasonHwPowerBrake;

// One reading of the GPU's clocks.
struct GpuClocks {
    bool known = false;          // false: clocks unknown (no NVML, no nvidia-smi, or they did not answer)
    unsigned sm_mhz = 0, memory_mhz = 0;
    bool reasons_known = false;  // the reasons were read (a GPU may report clocks but not reasons)
    unsigned long long reasons = 0;
    std::string source;          // "nvml" or "nvidia-smi"
};

// Whether `reasons` hold one of kPowerOrHeatReasons.
bool throttled_for_power_or_heat(unsigned long long reasons);
// The reasons set in `reasons`, in words ("SW power cap", "HW thermal slowdown", "GPU idle", ...;
// an unnamed bit as its hex value).
std::vector<std::string> clock_reason_names(unsigned long long reasons);
// Whether a reading shows the GPU throttled for power or heat.
inline bool throttled(const GpuClocks& c) { return c.known && c.reasons_known && throttled_for_power_or_heat(c.reasons); }

// One line of `nvidia-smi --query-gpu=clocks.sm,clocks.mem,clocks_event_reasons.active
// --format=csv,noheader,nounits` ("1980, 2619, 0x0000000000000001"). False when it is no such
// line (an error message, "[N/A]" clocks); reasons it cannot read leave reasons_known false.
bool parse_nvidia_smi_clocks(const std::string& line, GpuClocks& out);

// Reads one GPU's clocks. The unit tests give a fake one.
class ClockReader {
public:
    virtual ~ClockReader() = default;
    virtual GpuClocks read() = 0;
};

// The reader for the GPU a worker's runs use: named by its UUID (`gpu_uuid`, as the harness
// reports it), else by `cuda_visible_devices` when that is a UUID, else the machine's only GPU.
// NVML where it loads; else nvidia-smi (run with run_trusted, `scratch_dir` its scratch folder);
// else a reader whose every reading is unknown. Never throws.
std::unique_ptr<ClockReader> open_clock_reader(const std::string& gpu_uuid, const std::string& cuda_visible_devices,
                                               const std::string& scratch_dir);

}  // namespace grading
