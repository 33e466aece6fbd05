// The rule of a graded host round trip (lab 01's host variant, lab 06's roundtrip_sync): its
// result is the bytes its code copied back from the device, and what it copies to the device is
// its inputs, unchanged.
//
// While the variant's call runs, its inputs are sealed (host_seal.h), and the grading shims (grading_shims.cu) tell the watch of every
// copy that crosses between host memory and the device, and of every allocation of memory the
// CPU and the GPU share. The ledger below keeps the inputs' bytes as they were when the call
// began, and a shadow of the output in which each copy back lands. Once the call returns, an
// output that differs from its shadow was written some other way (by the CPU), and the case
// breaks the rule; so does a copy to the device of any other host bytes (a result computed on the
// CPU, handed over for a kernel to pass along), a copy back into any other host memory, or memory
// both sides reach. The grader scores a case that breaks it as one made against the test's rules:
// the whole test is 0 (judge.cpp). A kernel that reads host memory directly (HMM) is beyond what
// these calls show: grading/DESIGN.md, known limits.
//
// Part of the grader's harness (grading/harness/). The ledger is host code (unit-tested with
// g++); round_trip.cu holds the watch that RunContext::run_round_trip starts (and the seal of
// run_host_call), and the hooks the
// shims call.
#pragma once
#include <cstddef>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "host_span.h"

namespace cudalabs {

class RoundTripLedger {
public:
    RoundTripLedger(const std::vector<HostSpan>& inputs, HostSpan output)
        : output_(output), shadow_(bytes_of(output)) {
        for (const HostSpan& in : inputs) inputs_.push_back({in, bytes_of(in)});
    }

    // Before a copy of `bytes` from host memory at `src` to the device: it must lie within one
    // input and hold that input's own bytes. `sent` is where the copy really reads them (a
    // sealed input's bytes are read from the seal's copy: host_seal.h).
    void upload(const std::string& api, const void* src, size_t bytes) { upload(api, src, src, bytes); }
    void upload(const std::string& api, const void* src, const void* sent, size_t bytes) {
        if (bytes == 0) return;
        std::lock_guard<std::mutex> hold(lock_);
        size_t at = 0;
        for (const Input& in : inputs_)
            if (locate(in.span, src, bytes, at)) {
                if (std::memcmp(sent, in.bytes.data() + at, bytes) != 0)
                    breach(api + " copied to the device input bytes that the code had changed", bytes);
                return;
            }
        breach(api + " copied to the device host memory that is no input of the call", bytes);
    }
    // After a copy of `bytes` from the device into host memory at `dst`: it must land in the
    // output, and what it brought is what the output must hold there.
    // (An asynchronous copy's bytes are told when they have landed, from the runtime's thread.)
    void download(const std::string& api, const void* dst, size_t bytes) {
        if (bytes == 0) return;
        std::lock_guard<std::mutex> hold(lock_);
        size_t at = 0;
        if (locate(output_, dst, bytes, at)) std::memcpy(shadow_.data() + at, dst, bytes);
        else breach(api + " copied from the device into host memory that is not the call's output", bytes);
    }
    // An allocation of host memory that kernels can read and write (pinned, mapped, registered,
    // managed): through it the CPU and a kernel could trade results unseen.
    void shared_memory(const std::string& api) {
        std::lock_guard<std::mutex> hold(lock_);
        breach(api + " allocated memory that the CPU and the GPU share", 0);
    }

    // Once the call has returned: the breaches, the output's own check included. Call once.
    struct Breach {
        std::string what;
        size_t bytes;
    };
    std::vector<Breach> finish() {
        std::lock_guard<std::mutex> hold(lock_);
        const unsigned char* got = static_cast<const unsigned char*>(output_.ptr);
        size_t differing = 0, first = 0;
        for (size_t i = 0; i < shadow_.size(); ++i)
            if (got[i] != shadow_[i] && differing++ == 0) first = i;
        if (differing)
            breach(std::to_string(differing) + " bytes of the output (the first at byte " + std::to_string(first) +
                       ") are not what the code copied back from the device",
                   differing);
        return breaches_;
    }

    // The ledger of the call under way, for the shims (round_trip.cu): nullptr when none.
    static RoundTripLedger*& active() {
        static RoundTripLedger* ledger = nullptr;
        return ledger;
    }

private:
    struct Input {
        HostSpan span;
        std::vector<unsigned char> bytes;
    };
    static std::vector<unsigned char> bytes_of(HostSpan s) {
        const unsigned char* p = static_cast<const unsigned char*>(s.ptr);
        return std::vector<unsigned char>(p, p + s.bytes);
    }
    // Whether [p, p + bytes) lies wholly within `span`; `at` is then its offset there.
    static bool locate(HostSpan span, const void* p, size_t bytes, size_t& at) {
        const char* lo = static_cast<const char*>(span.ptr);
        const char* q = static_cast<const char*>(p);
        if (q < lo || q > lo + span.bytes || bytes > static_cast<size_t>(lo + span.bytes - q)) return false;
        at = static_cast<size_t>(q - lo);
        return true;
    }
    void breach(const std::string& what, size_t bytes) {
        for (const Breach& b : breaches_)
            if (b.what == what) return;  // once each: a loop of copies says it once
        breaches_.push_back({what, bytes});
    }

    std::vector<Input> inputs_;
    HostSpan output_;
    std::vector<unsigned char> shadow_;
    std::vector<Breach> breaches_;
    std::mutex lock_;
};

}  // namespace cudalabs
