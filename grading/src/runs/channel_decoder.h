// The grader's reader of the result channel (the format: grading/protocol/channel_format.h, which the
// harness and the trace library write with). Host-only C++, for the grader and its tests.
//
// Decoder checks the framing (magic, seq = previous + 1, caps, known types, payloads that parse);
// LogBuilder checks the grammar and builds a RunLog, passing output bytes to an OutputStore so
// the reader never holds a large output in memory.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "channel_format.h"

namespace cudalabs {
namespace channel {
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
    uint64_t trace_lost = 0;   // kernel records the trace said it could not keep
    // The harness opened the GPU (DEVICE_READY): a run that began (records > 0) and stopped
    // before this could not get the GPU, and no code of the student's had run yet.
    bool device_ready = false;
    // TIMING_READY arrived (the harness waited for the grader's go before its first timed
    // repetition), and how many repetitions had begun before it (none, from the harness).
    bool timing_ready = false;
    size_t reps_before_timing_ready = 0;
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


// The grammar checker: a DecoderSink that builds the RunLog. The first problem ends it.
class LogBuilder : public DecoderSink {
public:
    explicit LogBuilder(OutputStore& store) : store_(store) {}

    bool on_record(const Record& r) override {
        if (!admit(r)) return false;
        switch (r.type) {
            case RecordType::RunBegin: return run_begin(r);
            case RecordType::TraceReady: log_.trace_ready = true; return true;
            case RecordType::TraceLost: log_.trace_lost += r.bytes; return true;
            case RecordType::DeviceReady: return device_ready();
            case RecordType::TimingReady: return timing_ready();
            case RecordType::CaseBegin: return case_begin(r);
            case RecordType::CaseEnd: return case_end();
            case RecordType::RepBegin: return rep_begin(r);
            case RecordType::RepEnd: return rep_end(r);
            case RecordType::Kernel: return kernel(r);
            case RecordType::Transfer: return transfer(r);
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
    // What has arrived so far (the reader acts on TIMING_READY while the program waits).
    const RunLog& so_far() const { return log_; }

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
    // The records of the grammar, each checked where it arrives.
    bool run_begin(const Record& r) {
        if (r.version != kProtocolVersion)
            return fail("the program speaks result-channel protocol " + std::to_string(r.version) + ", the grader " +
                        std::to_string(kProtocolVersion) + " (rebuild it with this harness)");
        return true;
    }
    bool device_ready() {
        if (log_.device_ready || in_case_ || !log_.cases.empty()) return fail("the GPU was reported open twice, or after a case");
        log_.device_ready = true;
        return true;
    }
    bool timing_ready() {
        if (!log_.device_ready || log_.timing_ready || in_rep_)
            return fail("the program said it was ready to be timed twice, before the GPU was open, or inside a repetition");
        log_.timing_ready = true;
        for (const CaseLog& c : log_.cases) log_.reps_before_timing_ready += c.reps.size();
        return true;
    }
    bool case_begin(const Record& r) {
        if (in_case_) return fail("a case began before the previous one (" + current().key() + ") ended");
        if (!plain_name(r.variant, false) || !plain_name(r.size, true)) return fail("a case was named with unexpected characters");
        CaseLog c;
        c.variant = r.variant;
        c.size = r.size;
        log_.cases.push_back(std::move(c));
        in_case_ = true;
        return true;
    }
    bool case_end() {
        if (!in_case_) return fail("a case ended that had not begun");
        if (in_rep_) return fail("case " + current().key() + " ended inside timed repetition " + std::to_string(current().reps.back().rep));
        CaseLog& c = current();
        if (!c.faults.empty() && !store_.write_faults(faults_file_name(c.key()), c.faults))
            return grader_failed("the grader could not store the faults: " + store_.error);
        c.ended = true;
        in_case_ = false;
        return true;
    }
    bool rep_begin(const Record& r) {
        if (!in_case_) return fail("a timed repetition began outside a case");
        if (in_rep_)
            return fail("timed repetition " + std::to_string(r.rep) + " began inside repetition " + std::to_string(current().reps.back().rep));
        if (r.rep != current().reps.size())
            return fail("timed repetition " + std::to_string(r.rep) + " began where repetition " + std::to_string(current().reps.size()) +
                        " was expected");
        RepLog rep;
        rep.rep = r.rep;
        rep.warmup = r.warmup;
        current().reps.push_back(rep);
        in_rep_ = true;
        return true;
    }
    bool rep_end(const Record& r) {
        if (!in_rep_ || current().reps.back().rep != r.rep)
            return fail("timed repetition " + std::to_string(r.rep) + " ended without having begun");
        current().reps.back().ended = true;
        in_rep_ = false;
        return true;
    }
    bool kernel(const Record& r) {
        KernelRec k{r.text, r.truncated, r.start_ns, r.end_ns};
        if (!in_case_) log_.kernels_outside_cases.push_back(std::move(k));
        else if (in_rep_) current().reps.back().kernels.push_back(std::move(k));
        else current().kernels.push_back(std::move(k));
        return true;
    }
    bool transfer(const Record& r) {
        TransferRec t{r.text, r.direction, r.bytes, -1};
        if (!in_case_) {
            log_.transfers_outside_cases.push_back(std::move(t));
            return true;
        }
        if (in_rep_) t.rep = static_cast<int>(current().reps.back().rep);
        current().transfers.push_back(std::move(t));
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
