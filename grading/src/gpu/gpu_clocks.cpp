#include "gpu/gpu_clocks.h"

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <mutex>

#include "gpu/nvml_api.h"
#include "isolation/isolation.h"
#include "util/files.h"
#include "util/text.h"

namespace grading {

bool throttled_for_power_or_heat(unsigned long long reasons) { return (reasons & kPowerOrHeatReasons) != 0; }

std::vector<std::string> clock_reason_names(unsigned long long reasons) {
    static const std::pair<unsigned long long, const char*> kNames[] = {
        {kClockReasonGpuIdle, "GPU idle"},
        {kClockReasonApplicationsClocks, "application clocks setting"},
        {kClockReasonSwPowerCap, "SW power cap"},
        {kClockReasonHwSlowdown, "HW slowdown"},
        {kClockReasonSyncBoost, "sync boost"},
        {kClockReasonSwThermal, "SW thermal slowdown"},
        {kClockReasonHwThermal, "HW thermal slowdown"},
        {kClockReasonHwPowerBrake, "HW power brake slowdown"},
        {kClockReasonDisplayClocks, "display clock setting"},
    };
    std::vector<std::string> names;
    unsigned long long named = 0;
    for (const auto& [bit, name] : kNames) {
        named |= bit;
        if (reasons & bit) names.push_back(name);
    }
    if (reasons & ~named) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "0x%llx", reasons & ~named);
        names.push_back(buf);
    }
    return names;
}

namespace {

// A whole non-negative decimal number, else false ("[N/A]", "").
bool parse_mhz(const std::string& field, unsigned& out) {
    const std::string t = trim(field);
    if (t.empty() || t.size() > 9 || t.find_first_not_of("0123456789") != std::string::npos) return false;
    out = static_cast<unsigned>(std::stoul(t));
    return true;
}

bool parse_reasons(const std::string& field, unsigned long long& out) {
    const std::string t = trim(field);
    if (t.size() < 3 || t.size() > 18 || (t.compare(0, 2, "0x") != 0 && t.compare(0, 2, "0X") != 0)) return false;
    if (t.find_first_not_of("0123456789abcdefABCDEF", 2) != std::string::npos) return false;
    out = std::strtoull(t.c_str() + 2, nullptr, 16);
    return true;
}

}  // namespace

bool parse_nvidia_smi_clocks(const std::string& line, GpuClocks& out) {
    const std::string text = trim(line.substr(0, line.find('\n')));
    std::vector<std::string> fields;
    for (size_t start = 0;;) {
        const size_t comma = text.find(',', start);
        fields.push_back(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    GpuClocks c;
    if (fields.size() != 3 || !parse_mhz(fields[0], c.sm_mhz) || !parse_mhz(fields[1], c.memory_mhz)) return false;
    c.known = true;
    c.reasons_known = parse_reasons(fields[2], c.reasons);
    c.source = "nvidia-smi";
    out = c;
    return true;
}

namespace {

bool is_gpu_uuid(const std::string& s) { return s.rfind("GPU-", 0) == 0 || s.rfind("MIG-", 0) == 0; }

// Every reading unknown: neither NVML nor nvidia-smi answers here.
class UnknownClocks : public ClockReader {
public:
    GpuClocks read() override { return {}; }
};

// NVML, loaded once for the whole process (it is thread-safe; one handle per reader) and never
// unloaded: workers on several GPUs read at once.
struct NvmlLibrary {
    bool loaded = false;
    nvml::DeviceCountFn device_count = nullptr;
    nvml::HandleByUuidFn by_uuid = nullptr;
    nvml::HandleByIndexFn by_index = nullptr;
    nvml::ClockInfoFn clock_info = nullptr;
    nvml::ClockReasonsFn reasons = nullptr;
};

const NvmlLibrary& nvml_library() {
    static NvmlLibrary lib;
    static std::once_flag once;
    std::call_once(once, [] {
        void* h = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
        if (!h) return;
        auto init = reinterpret_cast<nvml::InitFn>(dlsym(h, "nvmlInit_v2"));
        lib.device_count = reinterpret_cast<nvml::DeviceCountFn>(dlsym(h, "nvmlDeviceGetCount_v2"));
        lib.by_uuid = reinterpret_cast<nvml::HandleByUuidFn>(dlsym(h, "nvmlDeviceGetHandleByUUID"));
        lib.by_index = reinterpret_cast<nvml::HandleByIndexFn>(dlsym(h, "nvmlDeviceGetHandleByIndex_v2"));
        lib.clock_info = reinterpret_cast<nvml::ClockInfoFn>(dlsym(h, "nvmlDeviceGetClockInfo"));
        // The newer name first; drivers before R535 have only the older one.
        lib.reasons = reinterpret_cast<nvml::ClockReasonsFn>(dlsym(h, "nvmlDeviceGetCurrentClocksEventReasons"));
        if (!lib.reasons) lib.reasons = reinterpret_cast<nvml::ClockReasonsFn>(dlsym(h, "nvmlDeviceGetCurrentClocksThrottleReasons"));
        lib.loaded = init && lib.clock_info && (lib.by_uuid || lib.by_index) && init() == nvml::kSuccess;
    });
    return lib;
}

class NvmlClocks : public ClockReader {
public:
    NvmlClocks(const NvmlLibrary& lib, nvml::Device device) : lib_(lib), device_(device) {}
    GpuClocks read() override {
        GpuClocks c;
        unsigned sm = 0, memory = 0;
        if (lib_.clock_info(device_, nvml::kClockSm, &sm) != nvml::kSuccess ||
            lib_.clock_info(device_, nvml::kClockMemory, &memory) != nvml::kSuccess)
            return c;
        c.known = true;
        c.sm_mhz = sm;
        c.memory_mhz = memory;
        c.reasons_known = lib_.reasons && lib_.reasons(device_, &c.reasons) == nvml::kSuccess;
        c.source = "nvml";
        return c;
    }

private:
    const NvmlLibrary& lib_;
    nvml::Device device_;
};

// nvidia-smi, for a machine whose NVML the grader cannot load. The field of the reasons was
// renamed in R535 (clocks_throttle_reasons -> clocks_event_reasons): the older name is tried
// when the newer is refused. After a run that fails outright, no more are tried.
class NvidiaSmiClocks : public ClockReader {
public:
    NvidiaSmiClocks(std::string device, std::string scratch) : device_(std::move(device)), scratch_(std::move(scratch)) {}
    GpuClocks read() override {
        GpuClocks c;
        for (int tries = 0; available_ && tries < 2; ++tries) {
            const RunResult r = run_trusted({"nvidia-smi", "--query-gpu=clocks.sm,clocks.mem," + reasons_field_,
                                             "--format=csv,noheader,nounits", "-i", device_},
                                            scratch_, 20, scratch_);
            if (r.ok() && parse_nvidia_smi_clocks(r.out, c)) return c;
            if (reasons_field_ == "clocks_event_reasons.active" && r.started) {
                reasons_field_ = "clocks_throttle_reasons.active";
                continue;
            }
            available_ = false;
        }
        return c;
    }

private:
    std::string device_, scratch_;
    std::string reasons_field_ = "clocks_event_reasons.active";
    bool available_ = true;
};

}  // namespace

std::unique_ptr<ClockReader> open_clock_reader(const std::string& gpu_uuid, const std::string& cuda_visible_devices,
                                               const std::string& scratch_dir) {
    try {
        const std::string uuid = !gpu_uuid.empty() ? gpu_uuid : is_gpu_uuid(trim(cuda_visible_devices)) ? trim(cuda_visible_devices) : "";
        const NvmlLibrary& lib = nvml_library();
        if (lib.loaded) {
            nvml::Device device = nullptr;
            unsigned count = 0;
            // CUDA's indices need not be NVML's (CUDA_DEVICE_ORDER): an index names the GPU only
            // where the machine has one.
            const bool found = !uuid.empty() ? lib.by_uuid && lib.by_uuid(uuid.c_str(), &device) == nvml::kSuccess
                                             : lib.device_count && lib.by_index && lib.device_count(&count) == nvml::kSuccess &&
                                                   count == 1 && lib.by_index(0, &device) == nvml::kSuccess;
            if (found) return std::make_unique<NvmlClocks>(lib, device);
        }
        // nvidia-smi -i takes a UUID; without one it could name another GPU than the worker's.
        if (!uuid.empty()) return std::make_unique<NvidiaSmiClocks>(uuid, scratch_dir);
        return std::make_unique<UnknownClocks>();
    } catch (const std::exception&) {
        return std::make_unique<UnknownClocks>();
    }
}

}  // namespace grading
