// The result channel between a lab program and the grader: framed binary records on a pipe the
// grader owns (grading/README.md, "Results"). Host-only C++ with no CUDA, shared by the harness
// (common/channel.cpp writes), the CUPTI trace library (writes KERNEL records through the
// harness) and the grader (grading/src/channel.cpp reads).
//
// A record is a 24-byte header {u32 magic 'CLR1', u32 type, u64 seq, u64 payload length} and its
// payload. Numbers are little-endian and fixed width; strings are a u32 length and the bytes;
// output bytes a u64 length and the bytes. Nothing depends on newlines, so a kernel name or a
// fault text cannot run into the next record, and every length is checked against a cap.
//
// Grammar: RUN_BEGIN first; per case CASE_BEGIN ... CASE_END holding OUTPUT, TIMED_OUTPUT,
// TRANSFER, KERNEL, REP_BEGIN/REP_END (paired, numbered 0, 1, ... within the case), FAULT;
// KERNEL, TRANSFER, FAULT and TRACE_READY may also come between cases; RUN_END last.
// Decoder checks the framing (magic, seq = previous + 1, caps, known types, payloads that parse);
// LogBuilder checks the grammar and builds a RunLog, passing output bytes to an OutputStore so
// the reader never holds a large output in memory.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace cudalabs {
namespace channel {

constexpr uint32_t kMagic = 0x31524C43u;  // "CLR1" in the byte order of the stream
constexpr uint32_t kProtocolVersion = 1;
constexpr size_t kHeaderBytes = 24;
constexpr size_t kMaxKernelName = 4096;   // longer names are cut and flagged truncated
constexpr size_t kMaxText = 16384;        // fault texts, API names, case names

enum class RecordType : uint32_t {
    RunBegin = 1,     // {u32 protocol version}
    CaseBegin = 2,    // {str variant, str size}
    Output = 3,       // {u32 k, u64 n, n bytes}: the k-th checked output of the case
    TimedOutput = 4,  // {u32 k, u32 rep, u64 n, n bytes}: output k after repetition rep (with
                      // --fresh-inputs, its sampled elements: fresh_inputs.h)
    Transfer = 5,     // {str api, u32 direction, u64 bytes}
    Kernel = 6,       // {str name, u32 truncated, u64 start_ns, u64 end_ns}
    RepBegin = 7,     // {u32 rep, u32 warm-up}: warm-up 1 when the repetition's time is not used
    RepEnd = 8,       // {u32 rep}
    Fault = 9,        // {str text}
    CaseEnd = 10,     // {}
    RunEnd = 11,      // {}
    TraceReady = 12,  // {u32 tracer version}: the kernel trace is loaded and recording
    DeviceReady = 13, // {}: the harness opened the GPU (before it, no code of the student's has run)
};

enum class Direction : uint32_t {
    HostToDevice = 0,
    DeviceToHost = 1,
    DeviceToDevice = 2,
    HostToHost = 3,
    HostAlloc = 4,  // host memory the GPU can reach (pinned, mapped, registered, managed)
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
    }
    return "unknown";
}

inline bool known_type(uint32_t t) { return t >= 1 && t <= 13; }

inline const char* direction_name(Direction d) {
    switch (d) {
        case Direction::HostToDevice: return "host_to_device";
        case Direction::DeviceToHost: return "device_to_host";
        case Direction::DeviceToDevice: return "device_to_device";
        case Direction::HostToHost: return "host_to_host";
        case Direction::HostAlloc: return "host_alloc";
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
    uint64_t bytes = 0;          // OUTPUT, TIMED_OUTPUT: output bytes; TRANSFER: bytes moved
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
            ok = in.str(r.text, kMaxText) && in.u32(dir) && dir <= 4 && in.u64(r.bytes);
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
        case RecordType::CaseEnd:
        case RecordType::RunEnd:
        case RecordType::DeviceReady: break;
        case RecordType::Output:
        case RecordType::TimedOutput: return false;  // streamed, never parsed whole
    }
    return ok && in.done();
}

// Where decoded records go. Each returns false to stop decoding (the sink keeps its reason).
struct DecoderSink {
    virtual ~DecoderSink() = default;
    virtual bool on_record(const Record& r) = 0;
    // OUTPUT / TIMED_OUTPUT: r holds k, rep and bytes; the bytes follow in on_output_data calls
    // (none for an empty output), then on_output_end.
    virtual bool on_output_begin(const Record& r) = 0;
    virtual bool on_output_data(const unsigned char* data, size_t n) = 0;
    virtual bool on_output_end() = 0;
};

struct DecoderLimits {
    uint64_t max_record_bytes = 1u << 20;      // payload of any record but an output
    uint64_t max_output_bytes = 4ull << 30;    // bytes of one output
};

// A streaming decoder: feed() it what the pipe gave, in pieces of any size; finish() at EOF.
// After the first error it stops and error() says what went wrong, in one sentence.
class Decoder {
public:
    explicit Decoder(DecoderSink& sink, DecoderLimits limits = {}) : sink_(sink), limits_(limits) {}

    bool feed(const unsigned char* data, size_t n) {
        while (n > 0 && ok()) {
            size_t used = 0;
            switch (state_) {
                case State::Header: used = take_header(data, n); break;
                case State::Payload: used = take_payload(data, n); break;
                case State::OutputPrefix: used = take_output_prefix(data, n); break;
                case State::OutputData: used = take_output_data(data, n); break;
            }
            data += used;
            n -= used;
        }
        return ok();
    }
    // The stream ended: an error when it ended inside a record.
    bool finish() {
        if (ok() && (state_ != State::Header || !buf_.empty()))
            fail("the result channel ended in the middle of a record (did the program crash?)");
        return ok();
    }
    bool ok() const { return error_.empty() && !stopped_; }
    bool stopped_by_sink() const { return stopped_; }
    const std::string& error() const { return error_; }
    uint64_t records() const { return next_seq_; }

private:
    enum class State { Header, Payload, OutputPrefix, OutputData };

    void fail(const std::string& why) {
        if (error_.empty()) error_ = why;
    }
    void sink_said(bool go_on) {
        if (!go_on) stopped_ = true;
    }
    size_t fill(const unsigned char* data, size_t n, size_t want) {
        size_t k = std::min(n, want - buf_.size());
        buf_.insert(buf_.end(), data, data + k);
        return k;
    }
    size_t take_header(const unsigned char* data, size_t n) {
        size_t used = fill(data, n, kHeaderBytes);
        if (buf_.size() < kHeaderBytes) return used;
        const uint32_t magic = static_cast<uint32_t>(get_le(buf_.data(), 4));
        const uint32_t type = static_cast<uint32_t>(get_le(buf_.data() + 4, 4));
        const uint64_t seq = get_le(buf_.data() + 8, 8);
        length_ = get_le(buf_.data() + 16, 8);
        buf_.clear();
        if (magic != kMagic) {
            fail("the result channel held bytes that are not a record (after record " + std::to_string(next_seq_) + ")");
            return used;
        }
        if (seq != next_seq_) {
            fail("record " + std::to_string(seq) + " arrived where record " + std::to_string(next_seq_) +
                 " was expected (a record is missing, repeated or out of order)");
            return used;
        }
        if (!known_type(type)) {
            fail("record " + std::to_string(seq) + " has an unknown type (" + std::to_string(type) + ")");
            return used;
        }
        ++next_seq_;
        record_ = Record();
        record_.type = static_cast<RecordType>(type);
        record_.seq = seq;
        const bool output = record_.type == RecordType::Output || record_.type == RecordType::TimedOutput;
        const uint64_t cap = output ? limits_.max_output_bytes + 16 : limits_.max_record_bytes;
        if (length_ > cap) {
            fail(std::string("a ") + type_name(record_.type) + " record of " + std::to_string(length_) +
                 " bytes is larger than the limit of " + std::to_string(cap) + " bytes");
            return used;
        }
        if (output && length_ < output_prefix_bytes()) {
            fail(std::string("a ") + type_name(record_.type) + " record (" + std::to_string(record_.seq) +
                 ") whose contents do not parse");
            return used;
        }
        state_ = output ? State::OutputPrefix : State::Payload;
        if (state_ == State::Payload && length_ == 0) finish_small();
        return used;
    }
    void finish_small() {
        if (!parse_payload(buf_.data(), buf_.size(), record_))
            fail(std::string("a ") + type_name(record_.type) + " record (" + std::to_string(record_.seq) +
                 ") whose contents do not parse");
        else
            sink_said(sink_.on_record(record_));
        buf_.clear();
        state_ = State::Header;
    }
    size_t take_payload(const unsigned char* data, size_t n) {
        size_t used = fill(data, n, static_cast<size_t>(length_));
        if (buf_.size() == length_) finish_small();
        return used;
    }
    size_t take_output_prefix(const unsigned char* data, size_t n) {
        const size_t prefix = output_prefix_bytes();
        size_t used = fill(data, n, prefix);
        if (buf_.size() < prefix) return used;
        PayloadReader in(buf_.data(), prefix);
        bool parsed = in.u32(record_.k);
        if (record_.type == RecordType::TimedOutput) parsed = parsed && in.u32(record_.rep);
        parsed = parsed && in.u64(record_.bytes);
        buf_.clear();
        if (!parsed || record_.bytes != length_ - prefix) {
            fail(std::string("a ") + type_name(record_.type) + " record (" + std::to_string(record_.seq) +
                 ") whose length does not match its contents");
            return used;
        }
        remaining_ = record_.bytes;
        sink_said(sink_.on_output_begin(record_));
        state_ = State::OutputData;
        if (ok() && remaining_ == 0) end_output();
        return used;
    }
    size_t take_output_data(const unsigned char* data, size_t n) {
        size_t k = static_cast<size_t>(std::min<uint64_t>(n, remaining_));
        sink_said(sink_.on_output_data(data, k));
        remaining_ -= k;
        if (ok() && remaining_ == 0) end_output();
        return k;
    }
    void end_output() {
        sink_said(sink_.on_output_end());
        state_ = State::Header;
    }
    size_t output_prefix_bytes() const { return record_.type == RecordType::Output ? 12 : 16; }

    DecoderSink& sink_;
    DecoderLimits limits_;
    State state_ = State::Header;
    std::vector<unsigned char> buf_;
    Record record_;
    uint64_t length_ = 0, remaining_ = 0, next_seq_ = 0;
    std::string error_;
    bool stopped_ = false;
};

// ---- the grammar and the log ----------------------------------------------------------------

struct OutputRec {
    uint32_t k = 0;
    uint64_t bytes = 0;
    std::string file;  // name in the output folder: <variant>_<size>_<k>.bin
};
struct TimedOutputRec {
    uint32_t k = 0, rep = 0;
    uint64_t bytes = 0;
    std::string file;  // <variant>_<size>_<k>.rep<r>.bin
};
struct TransferRec {
    std::string api;
    Direction direction = Direction::HostToDevice;
    uint64_t bytes = 0;
    int rep = -1;  // the repetition it happened in; -1 outside repetitions
};
struct KernelRec {
    std::string name;  // as CUPTI reports it (mangled)
    bool truncated = false;
    uint64_t start_ns = 0, end_ns = 0;
};
struct RepLog {
    uint32_t rep = 0;
    bool warmup = false;  // a warm-up repetition: checked, but its time is not used
    std::vector<KernelRec> kernels;
    bool ended = false;
};
struct CaseLog {
    std::string variant, size;
    std::vector<OutputRec> outputs;
    std::vector<TimedOutputRec> timed;
    std::vector<TransferRec> transfers;
    std::vector<KernelRec> kernels;  // kernels outside repetitions
    std::vector<RepLog> reps;        // each with its kernels
    std::vector<std::string> faults;
    bool ended = false;
    std::string key() const { return variant + "_" + size; }
};
struct RunLog {
    bool complete = false;  // RUN_END arrived and nothing was wrong
    std::string error;      // the first problem, one sentence for the student
    bool trace_ready = false;  // the kernel trace announced itself
    // The harness opened the GPU (DEVICE_READY): a run that began (records > 0) and stopped
    // before this could not get the GPU, and no code of the student's had run yet.
    bool device_ready = false;
    // The grader itself could not store what the program sent (its disk): not the program's doing.
    bool grader_fault = false;
    std::vector<CaseLog> cases;
    std::vector<KernelRec> kernels_outside_cases;
    std::vector<TransferRec> transfers_outside_cases;
    std::vector<std::string> faults_outside_cases;
    uint64_t records = 0, bytes = 0;
};

// Where output bytes and fault lists go (a folder for the grader, memory for tests). Names are
// plain file names built from checked case names.
struct OutputStore {
    virtual ~OutputStore() = default;
    virtual bool begin(const std::string& name, uint64_t bytes) = 0;
    virtual bool write(const unsigned char* data, size_t n) = 0;
    virtual bool end() = 0;
    virtual bool write_faults(const std::string& name, const std::vector<std::string>& faults) = 0;
    std::string error;  // why a call returned false
};

// A case name part: a variant is one word; a size N, NxM or NxMxK. Both end up in file names.
inline bool plain_name(const std::string& s, bool size) {
    if (s.empty() || s.size() > 64) return false;
    for (char c : s) {
        const bool ok = size ? ((c >= '0' && c <= '9') || c == 'x')
                             : ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                                c == '_' || c == '-');
        if (!ok) return false;
    }
    return true;
}

inline std::string output_file_name(const std::string& key, uint32_t k) { return key + "_" + std::to_string(k) + ".bin"; }
inline std::string timed_output_file_name(const std::string& key, uint32_t k, uint32_t rep) {
    return key + "_" + std::to_string(k) + ".rep" + std::to_string(rep) + ".bin";
}
inline std::string faults_file_name(const std::string& key) { return key + "_faults.txt"; }

// The grammar checker: a DecoderSink that builds the RunLog. The first problem ends it.
class LogBuilder : public DecoderSink {
public:
    explicit LogBuilder(OutputStore& store) : store_(store) {}

    bool on_record(const Record& r) override {
        if (!admit(r)) return false;
        switch (r.type) {
            case RecordType::RunBegin:
                if (r.version != kProtocolVersion)
                    return fail("the program speaks result-channel protocol " + std::to_string(r.version) +
                                ", the grader " + std::to_string(kProtocolVersion) + " (rebuild it with this harness)");
                return true;
            case RecordType::TraceReady: log_.trace_ready = true; return true;
            case RecordType::DeviceReady:
                if (log_.device_ready || in_case_ || !log_.cases.empty()) return fail("the GPU was reported open twice, or after a case");
                log_.device_ready = true;
                return true;
            case RecordType::CaseBegin: {
                if (in_case_) return fail("a case began before the previous one (" + current().key() + ") ended");
                if (!plain_name(r.variant, false) || !plain_name(r.size, true))
                    return fail("a case was named with unexpected characters");
                CaseLog c;
                c.variant = r.variant;
                c.size = r.size;
                log_.cases.push_back(std::move(c));
                in_case_ = true;
                return true;
            }
            case RecordType::CaseEnd: {
                if (!in_case_) return fail("a case ended that had not begun");
                if (in_rep_) return fail("case " + current().key() + " ended inside timed repetition " +
                                         std::to_string(current().reps.back().rep));
                CaseLog& c = current();
                if (!c.faults.empty() && !store_.write_faults(faults_file_name(c.key()), c.faults))
                    return grader_failed("the grader could not store the faults: " + store_.error);
                c.ended = true;
                in_case_ = false;
                return true;
            }
            case RecordType::RepBegin: {
                if (!in_case_) return fail("a timed repetition began outside a case");
                if (in_rep_) return fail("timed repetition " + std::to_string(r.rep) + " began inside repetition " +
                                         std::to_string(current().reps.back().rep));
                if (r.rep != current().reps.size())
                    return fail("timed repetition " + std::to_string(r.rep) + " began where repetition " +
                                std::to_string(current().reps.size()) + " was expected");
                RepLog rep;
                rep.rep = r.rep;
                rep.warmup = r.warmup;
                current().reps.push_back(rep);
                in_rep_ = true;
                return true;
            }
            case RecordType::RepEnd:
                if (!in_rep_ || current().reps.back().rep != r.rep)
                    return fail("timed repetition " + std::to_string(r.rep) + " ended without having begun");
                current().reps.back().ended = true;
                in_rep_ = false;
                return true;
            case RecordType::Kernel: {
                KernelRec k{r.text, r.truncated, r.start_ns, r.end_ns};
                if (!in_case_) log_.kernels_outside_cases.push_back(std::move(k));
                else if (in_rep_) current().reps.back().kernels.push_back(std::move(k));
                else current().kernels.push_back(std::move(k));
                return true;
            }
            case RecordType::Transfer: {
                TransferRec t{r.text, r.direction, r.bytes, -1};
                if (!in_case_) {
                    log_.transfers_outside_cases.push_back(std::move(t));
                    return true;
                }
                if (in_rep_) t.rep = static_cast<int>(current().reps.back().rep);
                current().transfers.push_back(std::move(t));
                return true;
            }
            case RecordType::Fault:
                if (in_case_) current().faults.push_back(r.text);
                else log_.faults_outside_cases.push_back(r.text);
                return true;
            case RecordType::RunEnd:
                if (in_case_) return fail("the run ended inside case " + current().key());
                ended_ = true;
                return true;
            case RecordType::Output:
            case RecordType::TimedOutput: break;
        }
        return fail("internal: unexpected record");
    }

    bool on_output_begin(const Record& r) override {
        if (!admit(r)) return false;
        if (!in_case_) return fail(std::string("an output arrived outside a case"));
        if (in_rep_) return fail("an output of case " + current().key() + " arrived inside a timed repetition");
        CaseLog& c = current();
        std::string name;
        if (r.type == RecordType::Output) {
            if (r.k != c.outputs.size())
                return fail("output " + std::to_string(r.k) + " of case " + c.key() + " arrived where output " +
                            std::to_string(c.outputs.size()) + " was expected");
            name = output_file_name(c.key(), r.k);
            c.outputs.push_back({r.k, r.bytes, name});
        } else {
            if (r.k >= c.outputs.size())
                return fail("a timed repetition sent output " + std::to_string(r.k) + " of case " + c.key() +
                            ", which has no such checked output");
            // The whole output, or (fresh inputs) a sample of it: never more than the checked one.
            if (r.bytes == 0 || r.bytes > c.outputs[r.k].bytes)
                return fail("a timed repetition's output " + std::to_string(r.k) + " of case " + c.key() +
                            " is larger than the checked one, or empty");
            if (r.rep >= c.reps.size() || !c.reps[r.rep].ended)
                return fail("an output of timed repetition " + std::to_string(r.rep) + " of case " + c.key() +
                            " arrived before that repetition ended");
            for (const TimedOutputRec& t : c.timed)
                if (t.k == r.k && t.rep == r.rep)
                    return fail("output " + std::to_string(r.k) + " of timed repetition " + std::to_string(r.rep) +
                                " arrived twice");
            name = timed_output_file_name(c.key(), r.k, r.rep);
            c.timed.push_back({r.k, r.rep, r.bytes, name});
        }
        if (!store_.begin(name, r.bytes)) return grader_failed("the grader could not store an output: " + store_.error);
        return true;
    }
    bool on_output_data(const unsigned char* data, size_t n) override {
        return store_.write(data, n) || grader_failed("the grader could not store an output: " + store_.error);
    }
    bool on_output_end() override {
        return store_.end() || grader_failed("the grader could not store an output: " + store_.error);
    }

    // Framing errors from the decoder, or the end of the stream; returns the finished log.
    RunLog finish(const Decoder& decoder, uint64_t bytes) {
        if (log_.error.empty() && !decoder.error().empty()) log_.error = decoder.error();
        if (log_.error.empty() && !ended_) {
            if (!begun_)
                log_.error = "the program sent nothing through its result channel (did it start, and was it "
                             "built with the lab's harness?)";
            else if (in_case_)
                log_.error = "the program ended during variant " + current().variant + " at size " + current().size +
                             " before the case finished (did it crash or exit early?)";
            else
                log_.error = "the program ended without finishing its run (did it crash or exit early?)";
        }
        log_.complete = log_.error.empty();
        log_.records = decoder.records();
        log_.bytes = bytes;
        return log_;
    }
    // A problem found outside the decoder (the reader's byte cap, a read error).
    void fail_from_outside(const std::string& why) { fail(why); }
    // A failure of the grader's own (its disk), not of what the program sent.
    bool grader_failed(const std::string& why) {
        log_.grader_fault = true;
        return fail(why);
    }
    const std::string& error() const { return log_.error; }

private:
    bool fail(const std::string& why) {
        if (log_.error.empty()) log_.error = why;
        return false;
    }
    // RUN_BEGIN first, nothing after RUN_END.
    bool admit(const Record& r) {
        if (ended_) return fail(std::string("a ") + type_name(r.type) + " record arrived after the end of the run");
        if (!begun_) {
            if (r.type != RecordType::RunBegin)
                return fail(std::string("the result channel began with a ") + type_name(r.type) +
                            " record instead of the start of the run");
            begun_ = true;
            return true;
        }
        if (r.type == RecordType::RunBegin) return fail("the run began twice");
        return true;
    }
    CaseLog& current() { return log_.cases.back(); }

    OutputStore& store_;
    RunLog log_;
    bool begun_ = false, ended_ = false, in_case_ = false, in_rep_ = false;
};

// Keeps outputs in memory: for tests and for small diagnostic tools.
struct MemoryStore : OutputStore {
    std::map<std::string, std::string> files;
    std::string current;
    bool begin(const std::string& name, uint64_t) override {
        current = name;
        files[name].clear();
        return true;
    }
    bool write(const unsigned char* data, size_t n) override {
        files[current].append(reinterpret_cast<const char*>(data), n);
        return true;
    }
    bool end() override { return true; }
    bool write_faults(const std::string& name, const std::vector<std::string>& faults) override {
        std::string text;
        for (const std::string& f : faults) text += f + "\n";
        files[name] = text;
        return true;
    }
};

// Decodes a whole stream held in memory (tests, tools).
inline RunLog decode_all(const std::string& stream, OutputStore& store, DecoderLimits limits = {}) {
    LogBuilder builder(store);
    Decoder decoder(builder, limits);
    decoder.feed(reinterpret_cast<const unsigned char*>(stream.data()), stream.size());
    decoder.finish();
    return builder.finish(decoder, stream.size());
}

}  // namespace channel
}  // namespace cudalabs
