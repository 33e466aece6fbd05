// The few parts of NVIDIA's management library (NVML, libnvidia-ml.so.1) that the grader reads
// the GPU's clocks with. Declared here and found with dlsym at run time, so that the grader
// builds without the library's headers and runs where the library is missing (the clocks are
// then "unknown"). Values are NVML's own (nvml.h).
#pragma once

namespace grading::nvml {

using Return = int;  // nvmlReturn_t
constexpr Return kSuccess = 0;
struct DeviceStruct;
using Device = DeviceStruct*;  // nvmlDevice_t

// nvmlClockType_t
constexpr int kClockSm = 1;
constexpr int kClockMemory = 2;

using InitFn = Return (*)();                                      // nvmlInit_v2
using DeviceCountFn = Return (*)(unsigned int*);                  // nvmlDeviceGetCount_v2
using HandleByUuidFn = Return (*)(const char*, Device*);          // nvmlDeviceGetHandleByUUID
using HandleByIndexFn = Return (*)(unsigned int, Device*);        // nvmlDeviceGetHandleByIndex_v2
using ClockInfoFn = Return (*)(Device, int, unsigned int*);       // nvmlDeviceGetClockInfo
using ClockReasonsFn = Return (*)(Device, unsigned long long*);   // nvmlDeviceGetCurrentClocks{Event,Throttle}Reasons

}  // namespace grading::nvml
