// The result channel between a lab program and the grader: framed binary records on a pipe the
// grader owns (grading/DESIGN.md, "Results"). Host-only C++ with no CUDA, shared by the harness
// (grading/harness/channel_writer.cpp writes), the CUPTI trace library (writes KERNEL records through the
// harness) and the grader (grading/src/runs/channel.cpp reads).
//
// A record is a 24-byte header {u32 magic 'CLR1', u32 type, u64 seq, u64 payload length} and its
// payload. Numbers are little-endian and fixed width; strings are a u32 length and the bytes;
// output bytes a u64 length and the bytes. Nothing depends on newlines, so a kernel name or a
// fault text cannot run into the next record, and every length is checked against a cap.
//
// Grammar: RUN_BEGIN first; per case CASE_BEGIN ... CASE_END holding OUTPUT, TIMED_OUTPUT,
// TRANSFER, KERNEL, REP_BEGIN/REP_END (paired, numbered 0, 1, ... within the case), FAULT;
// KERNEL, TRANSFER, FAULT and TRACE_READY may also come between cases; RUN_END last.
// The grader's reader, which checks all of that, is grading/src/runs/channel_decoder.h; here are the
// format, the writers' encoding and the parsing of one small payload (the harness checks what
// the trace library hands it).
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace cudalabs {
namespace channel {

constexpr uint32_t kMagic = 0x31524C43u;  // "CLR1" in the byte order of the stream
constexpr uint32_t kProtocolVersion = 2;
constexpr size_t kHeaderBytes = 24;
constexpr size_t kMaxKernelName = 4096;   // longer names are cut and flagged truncated
constexpr size_t kMaxText = 16384;        // fault texts, API names, case names

enum class RecordType : uint32_t {
    RunBegin = 1,     // {u32 protocol version}
    CaseBegin = 2,    // {str variant, str size}
    Output = 3,       // {u32 k, u64 n, n bytes}: the k-th checked output of the case
    TimedOutput = 4,  // {u32 k, u32 rep, u64 n, n bytes}: output k after repetition rep (with
                      // --fresh-inputs, its sampled elements: grading/harness/)
    Transfer = 5,     // {str api, u32 direction, u64 bytes}
    Kernel = 6,       // {str name, u32 truncated, u64 start_ns, u64 end_ns}
    RepBegin = 7,     // {u32 rep, u32 warm-up}: warm-up 1 when the repetition's time is not used
    RepEnd = 8,       // {u32 rep}
    Fault = 9,        // {str text}
    CaseEnd = 10,     // {}
    RunEnd = 11,      // {}
    TraceReady = 12,  // {u32 tracer version}: the kernel trace is loaded and recording
    DeviceReady = 13, // {}: the harness opened the GPU (before it, no code of the student's has run)
    TraceLost = 14,   // {u64 records}: kernel records the trace could not keep (CUPTI dropped them)
    TimingReady = 15, // {}: about to time its first repetition; with --timing-gate FD the harness then
                      // waits for the grader's go on FD (the grader takes the GPU alone first)
};

enum class Direction : uint32_t {
    HostToDevice = 0,
    DeviceToHost = 1,
    DeviceToDevice = 2,
    HostToHost = 3,
    HostAlloc = 4,  // host memory the GPU can reach (pinned, mapped, registered, managed)
    DeviceToScratch = 5,  // a plain (1D) copy within the device into memory that is no output
    RoundTripBreach = 6,  // a host round trip broke its rule (the api field says how; bytes: how many)
};

inline const char* type_name(RecordType t) {
    switch (t) {
        case RecordType::RunBegin: return "RUN_BEGIN";
        case RecordType::CaseBegin: return "CASE_BEGIN";
        case RecordType::Output: return "OUTPUT";
        case RecordType::TimedOutput: return "TIMED_OUTPUT";
        case RecordType::Transfer: return "TRANSFER";
        case RecordType::Kernel: return "KERNEL";
        case RecordType::RepBegin: return "REP_BEGIN";
        case RecordType::RepEnd: return "REP_END";
        case RecordType::Fault: return "FAULT";
        case RecordType::CaseEnd: return "CASE_END";
        case RecordType::RunEnd: return "RUN_END";
        case RecordType::TraceReady: return "TRACE_READY";
        case RecordType::DeviceReady: return "DEVICE_READY";
        case RecordType::TraceLost: return "TRACE_LOST";
        case RecordType::TimingReady: return "TIMING_READY";
    }
    return "unknown";
}

inline bool known_type(uint32_t t) { return t >= 1 && t <= 15; }

inline const char* direction_name(Direction d) {
    switch (d) {
        case Direction::HostToDevice: return "host_to_device";
        case Direction::DeviceToHost: return "device_to_host";
        case Direction::DeviceToDevice: return "device_to_device";
        case Direction::HostToHost: return "host_to_host";
        case Direction::HostAlloc: return "host_alloc";
        case Direction::DeviceToScratch: return "device_to_scratch";
        case Direction::RoundTripBreach: return "round_trip_breach";
    }
    return "unknown";
}

// ---- encoding -----------------------------------------------------------------------------

class PayloadWriter {
public:
    PayloadWriter& u32(uint32_t v) { return put(v, 4); }
    PayloadWriter& u64(uint64_t v) { return put(v, 8); }
    PayloadWriter& str(const std::string& s) { return str(s.data(), s.size()); }
    PayloadWriter& str(const char* s, size_t n) {
        u32(static_cast<uint32_t>(n));
        bytes_.append(s, n);
        return *this;
    }
    const std::string& bytes() const { return bytes_; }

private:
    PayloadWriter& put(uint64_t v, int width) {
        for (int i = 0; i < width; ++i) bytes_.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
        return *this;
    }
    std::string bytes_;
};

inline void put_le(unsigned char* at, uint64_t v, int width) {
    for (int i = 0; i < width; ++i) at[i] = static_cast<unsigned char>((v >> (8 * i)) & 0xFF);
}
inline uint64_t get_le(const unsigned char* at, int width) {
    uint64_t v = 0;
    for (int i = width - 1; i >= 0; --i) v = (v << 8) | at[i];
    return v;
}

inline void encode_header(unsigned char out[kHeaderBytes], RecordType type, uint64_t seq, uint64_t length) {
    put_le(out, kMagic, 4);
    put_le(out + 4, static_cast<uint32_t>(type), 4);
    put_le(out + 8, seq, 8);
    put_le(out + 16, length, 8);
}

// A whole record (header and payload) in memory: for tests and small records.
inline std::string encode_record(RecordType type, uint64_t seq, const std::string& payload) {
    unsigned char h[kHeaderBytes];
    encode_header(h, type, seq, payload.size());
    return std::string(reinterpret_cast<const char*>(h), kHeaderBytes) + payload;
}

// Payloads of the small records.
inline std::string run_begin_payload(uint32_t version = kProtocolVersion) { return PayloadWriter().u32(version).bytes(); }
inline std::string case_begin_payload(const std::string& variant, const std::string& size) {
    return PayloadWriter().str(variant).str(size).bytes();
}
inline std::string transfer_payload(const std::string& api, Direction d, uint64_t bytes) {
    return PayloadWriter().str(api).u32(static_cast<uint32_t>(d)).u64(bytes).bytes();
}
// Names longer than kMaxKernelName are cut there and flagged.
inline std::string kernel_payload(const char* name, uint64_t start_ns, uint64_t end_ns) {
    size_t n = std::strlen(name);
    const bool truncated = n > kMaxKernelName;
    if (truncated) n = kMaxKernelName;
    return PayloadWriter().str(name, n).u32(truncated ? 1 : 0).u64(start_ns).u64(end_ns).bytes();
}
inline std::string rep_begin_payload(uint32_t rep, bool warmup) { return PayloadWriter().u32(rep).u32(warmup ? 1 : 0).bytes(); }
inline std::string rep_end_payload(uint32_t rep) { return PayloadWriter().u32(rep).bytes(); }
// Texts longer than kMaxText are cut (a fault message is one sentence).
inline std::string fault_payload(const std::string& text) {
    return PayloadWriter().str(text.substr(0, kMaxText)).bytes();
}
inline std::string trace_ready_payload(uint32_t tracer_version) { return PayloadWriter().u32(tracer_version).bytes(); }
inline std::string trace_lost_payload(uint64_t records) { return PayloadWriter().u64(records).bytes(); }
// The fixed part of OUTPUT / TIMED_OUTPUT payloads; the output's bytes follow it.
inline std::string output_prefix(uint32_t k, uint64_t bytes) { return PayloadWriter().u32(k).u64(bytes).bytes(); }
inline std::string timed_output_prefix(uint32_t k, uint32_t rep, uint64_t bytes) {
    return PayloadWriter().u32(k).u32(rep).u64(bytes).bytes();
}

// ---- decoding -----------------------------------------------------------------------------

// One decoded record. Only the fields of its type are set; for OUTPUT and TIMED_OUTPUT the
// bytes are not here (they are streamed to the sink).
struct Record {
    RecordType type = RecordType::RunBegin;
    uint64_t seq = 0;
    uint32_t version = 0;        // RUN_BEGIN, TRACE_READY
    std::string variant, size;   // CASE_BEGIN
    uint32_t k = 0, rep = 0;     // OUTPUT, TIMED_OUTPUT (k, rep), REP_BEGIN/REP_END (rep)
    bool warmup = false;         // REP_BEGIN
    uint64_t bytes = 0;          // OUTPUT, TIMED_OUTPUT: output bytes; TRANSFER: bytes moved; TRACE_LOST: records
    std::string text;            // TRANSFER: api; KERNEL: name; FAULT: text
    Direction direction = Direction::HostToDevice;  // TRANSFER
    bool truncated = false;      // KERNEL
    uint64_t start_ns = 0, end_ns = 0;  // KERNEL
};

class PayloadReader {
public:
    PayloadReader(const unsigned char* data, size_t size) : p_(data), n_(size) {}
    bool u32(uint32_t& v) {
        if (!need(4)) return false;
        v = static_cast<uint32_t>(get_le(p_ + at_, 4));
        at_ += 4;
        return true;
    }
    bool u64(uint64_t& v) {
        if (!need(8)) return false;
        v = get_le(p_ + at_, 8);
        at_ += 8;
        return true;
    }
    bool str(std::string& s, size_t max) {
        uint32_t len = 0;
        if (!u32(len) || len > max || !need(len)) return false;
        s.assign(reinterpret_cast<const char*>(p_ + at_), len);
        at_ += len;
        return true;
    }
    bool done() const { return at_ == n_; }

private:
    bool need(size_t k) const { return n_ - at_ >= k; }
    const unsigned char* p_;
    size_t n_, at_ = 0;
};

// Parses the payload of a small record into `r` (type and seq already set).
inline bool parse_payload(const unsigned char* data, size_t size, Record& r) {
    PayloadReader in(data, size);
    uint32_t flag = 0, dir = 0;
    bool ok = true;
    switch (r.type) {
        case RecordType::RunBegin:
        case RecordType::TraceReady: ok = in.u32(r.version); break;
        case RecordType::CaseBegin: ok = in.str(r.variant, kMaxText) && in.str(r.size, kMaxText); break;
        case RecordType::Transfer:
            ok = in.str(r.text, kMaxText) && in.u32(dir) && dir <= 6 && in.u64(r.bytes);
            r.direction = static_cast<Direction>(dir);
            break;
        case RecordType::Kernel:
            ok = in.str(r.text, kMaxKernelName) && in.u32(flag) && flag <= 1 && in.u64(r.start_ns) && in.u64(r.end_ns);
            r.truncated = flag == 1;
            break;
        case RecordType::RepBegin:
            ok = in.u32(r.rep) && in.u32(flag) && flag <= 1;
            r.warmup = flag == 1;
            break;
        case RecordType::RepEnd: ok = in.u32(r.rep); break;
        case RecordType::Fault: ok = in.str(r.text, kMaxText); break;
        case RecordType::TraceLost: ok = in.u64(r.bytes); break;
        case RecordType::CaseEnd:
        case RecordType::RunEnd:
        case RecordType::DeviceReady:
        case RecordType::TimingReady: break;
        case RecordType::Output:
        case RecordType::TimedOutput: return false;  // streamed, never parsed whole
    }
    return ok && in.done();
}

// ---- where the grader stores what it received (the verifier reads them back) ------------

inline std::string output_file_name(const std::string& key, uint32_t k) { return key + "_" + std::to_string(k) + ".bin"; }
inline std::string timed_output_file_name(const std::string& key, uint32_t k, uint32_t rep) {
    return key + "_" + std::to_string(k) + ".rep" + std::to_string(rep) + ".bin";
}
inline std::string faults_file_name(const std::string& key) { return key + "_faults.txt"; }

}  // namespace channel
}  // namespace cudalabs
