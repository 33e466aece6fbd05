// The result channel: the record format and its streaming decoder, the grammar checker that
// builds the RunLog (grading/src/runs/channel_decoder.h), the program's writer (grading/harness/channel_writer.h) and the
// grader's reader on a real pipe (grading/src/runs/channel.h).
#include <doctest/doctest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "common/args.h"
#include "grading/harness/channel_writer.h"
#include "grading/protocol/channel_format.h"
#include "grading/src/runs/channel.h"

using namespace cudalabs::channel;

namespace {

// Builds a stream record by record, numbering them.
struct Stream {
    uint64_t seq = 0;
    std::string bytes;
    Stream& add(RecordType type, const std::string& payload = "") {
        bytes += encode_record(type, seq++, payload);
        return *this;
    }
    Stream& output(uint32_t k, const std::string& data) { return add(RecordType::Output, output_prefix(k, data.size()) + data); }
    Stream& timed(uint32_t k, uint32_t rep, const std::string& data) {
        return add(RecordType::TimedOutput, timed_output_prefix(k, rep, data.size()) + data);
    }
    Stream& begin() { return add(RecordType::RunBegin, run_begin_payload()); }
    Stream& end() { return add(RecordType::RunEnd); }
    Stream& case_begin(const std::string& v, const std::string& s) { return add(RecordType::CaseBegin, case_begin_payload(v, s)); }
    Stream& case_end() { return add(RecordType::CaseEnd); }
    Stream& rep_begin(uint32_t r, bool warmup = false) { return add(RecordType::RepBegin, rep_begin_payload(r, warmup)); }
    Stream& rep_end(uint32_t r) { return add(RecordType::RepEnd, rep_end_payload(r)); }
    Stream& kernel(const std::string& name, uint64_t t0 = 10, uint64_t t1 = 20) {
        return add(RecordType::Kernel, kernel_payload(name.c_str(), t0, t1));
    }
};

RunLog decode(const std::string& s, MemoryStore* store = nullptr, DecoderLimits limits = {}) {
    MemoryStore local;
    return decode_all(s, store ? *store : local, limits);
}

// A whole run of one case, with a timed repetition that changed its output.
Stream full_run() {
    Stream s;
    s.begin()
        .add(RecordType::TraceReady, trace_ready_payload(130000))
        .kernel("_Z9copy_bandPfS_")
        .case_begin("fast", "1000")
        .add(RecordType::Transfer, transfer_payload("cudaMemcpy", Direction::HostToDevice, 4000))
        .kernel("_Z10add_kernelPKfS0_Pfi", 100, 250)
        .output(0, "ABCD")
        .rep_begin(0, true)
        .kernel("_Z10add_kernelPKfS0_Pfi", 300, 400)
        .add(RecordType::Transfer, transfer_payload("cudaMemcpy", Direction::DeviceToHost, 4000))
        .rep_end(0)
        .rep_begin(1)
        .kernel("_Z10add_kernelPKfS0_Pfi", 500, 600)
        .kernel("_Z6helperv", 610, 620)
        .rep_end(1)
        .timed(0, 1, "ABCE")
        .add(RecordType::Fault, fault_payload("2 bytes written after the end of a buffer"))
        .case_end()
        .end();
    return s;
}

std::string scratch_dir() {
    char tmpl[] = "/tmp/channel-test-XXXXXX";
    const char* dir = mkdtemp(tmpl);
    REQUIRE(dir != nullptr);
    return dir;
}

std::string slurp(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

}  // namespace

TEST_CASE("channel: a whole run decodes into its cases, repetitions, kernels and outputs") {
    MemoryStore store;
    RunLog log = decode(full_run().bytes, &store);
    INFO(log.error);
    REQUIRE(log.complete);
    CHECK(log.trace_ready);
    REQUIRE(log.kernels_outside_cases.size() == 1);
    CHECK(log.kernels_outside_cases[0].name == "_Z9copy_bandPfS_");
    REQUIRE(log.cases.size() == 1);
    const CaseLog& c = log.cases[0];
    CHECK(c.variant == "fast");
    CHECK(c.size == "1000");
    CHECK(c.ended);
    REQUIRE(c.kernels.size() == 1);  // the checked run's kernel, outside the repetitions
    CHECK(c.kernels[0].start_ns == 100);
    CHECK(c.kernels[0].end_ns == 250);
    REQUIRE(c.reps.size() == 2);
    CHECK(c.reps[0].warmup);
    CHECK_FALSE(c.reps[1].warmup);
    CHECK(c.reps[0].kernels.size() == 1);
    REQUIRE(c.reps[1].kernels.size() == 2);
    CHECK(c.reps[1].kernels[1].name == "_Z6helperv");
    CHECK(c.reps[1].ended);
    REQUIRE(c.transfers.size() == 2);
    CHECK(c.transfers[0].rep == -1);
    CHECK(c.transfers[0].direction == Direction::HostToDevice);
    CHECK(c.transfers[1].rep == 0);
    CHECK(c.transfers[1].direction == Direction::DeviceToHost);
    CHECK(c.transfers[1].bytes == 4000);
    REQUIRE(c.outputs.size() == 1);
    CHECK(c.outputs[0].file == "fast_1000_0.bin");
    CHECK(c.outputs[0].bytes == 4);
    REQUIRE(c.timed.size() == 1);
    CHECK(c.timed[0].file == "fast_1000_0.rep1.bin");
    CHECK(store.files["fast_1000_0.bin"] == "ABCD");
    CHECK(store.files["fast_1000_0.rep1.bin"] == "ABCE");
    CHECK(store.files["fast_1000_faults.txt"] == "2 bytes written after the end of a buffer\n");
    CHECK(log.records == full_run().seq);
}

TEST_CASE("channel: the trace's lost records are added up, in a case or outside one") {
    Stream s;
    s.begin()
        .add(RecordType::TraceReady, trace_ready_payload(130000))
        .add(RecordType::TraceLost, trace_lost_payload(2))
        .case_begin("fast", "1000")
        .add(RecordType::TraceLost, trace_lost_payload(5))
        .case_end()
        .end();
    RunLog log = decode(s.bytes);
    INFO(log.error);
    REQUIRE(log.complete);
    CHECK(log.trace_lost == 7);
    CHECK(decode(full_run().bytes).trace_lost == 0);
}

TEST_CASE("channel: the decoder takes the stream in pieces of any size") {
    const std::string s = full_run().bytes;
    for (size_t piece : {size_t(1), size_t(7), size_t(23), size_t(24), size_t(1000)}) {
        MemoryStore store;
        LogBuilder builder(store);
        Decoder decoder(builder);
        for (size_t at = 0; at < s.size(); at += piece)
            decoder.feed(reinterpret_cast<const unsigned char*>(s.data()) + at, std::min(piece, s.size() - at));
        decoder.finish();
        RunLog log = builder.finish(decoder, s.size());
        INFO("piece " << piece << ": " << log.error);
        CHECK(log.complete);
        CHECK(store.files["fast_1000_0.rep1.bin"] == "ABCE");
        REQUIRE(log.cases.size() == 1);
        CHECK(log.cases[0].reps.size() == 2);
    }
}

TEST_CASE("channel: framing errors") {
    SUBCASE("a sequence gap") {
        Stream s;
        s.begin();
        s.seq = 2;  // record 1 never came
        s.end();
        RunLog log = decode(s.bytes);
        CHECK_FALSE(log.complete);
        CHECK(log.error.find("record 2 arrived where record 1 was expected") != std::string::npos);
    }
    SUBCASE("a duplicated record") {
        Stream s;
        s.begin().case_begin("fast", "7");
        s.seq = 1;
        s.case_begin("fast", "7").case_end().end();
        RunLog log = decode(s.bytes);
        CHECK_FALSE(log.complete);
        CHECK(log.error.find("record 1 arrived where record 2 was expected") != std::string::npos);
    }
    SUBCASE("bytes that are not a record") {
        Stream s;
        s.begin();
        s.bytes += std::string(30, 'x');
        RunLog log = decode(s.bytes);
        CHECK(log.error.find("not a record") != std::string::npos);
    }
    SUBCASE("an unknown type") {
        Stream s;
        s.begin();
        s.bytes += encode_record(static_cast<RecordType>(99), s.seq++, "");
        s.end();
        CHECK(decode(s.bytes).error.find("unknown type (99)") != std::string::npos);
    }
    SUBCASE("a payload with bytes left over does not parse") {
        Stream s;
        s.begin().add(RecordType::RepEnd, rep_end_payload(0) + "z").end();
        CHECK(decode(s.bytes).error.find("do not parse") != std::string::npos);
    }
    SUBCASE("a warm-up flag that is neither 0 nor 1") {
        Stream s;
        s.begin().case_begin("fast", "7").add(RecordType::RepBegin, PayloadWriter().u32(0).u32(2).bytes());
        CHECK(decode(s.bytes).error.find("REP_BEGIN record (2) whose contents do not parse") != std::string::npos);
    }
    SUBCASE("a transfer's direction: a copy into scratch memory and a round trip's breach are two, a number past them is not") {
        Stream ok;
        ok.begin().case_begin("fast", "7").add(RecordType::Transfer, transfer_payload("cudaMemcpyAsync", Direction::DeviceToScratch, 64));
        ok.add(RecordType::Transfer, transfer_payload("cudaMemcpy copied ...", Direction::RoundTripBreach, 8));
        ok.case_end().end();
        RunLog log = decode(ok.bytes);
        REQUIRE(log.complete);
        CHECK(log.cases[0].transfers[0].direction == Direction::DeviceToScratch);
        CHECK(log.cases[0].transfers[1].direction == Direction::RoundTripBreach);
        CHECK(std::string(direction_name(Direction::DeviceToScratch)) == "device_to_scratch");
        CHECK(std::string(direction_name(Direction::RoundTripBreach)) == "round_trip_breach");
        Stream bad;
        bad.begin().case_begin("fast", "7").add(RecordType::Transfer, PayloadWriter().str("cudaMemcpy").u32(7).u64(64).bytes());
        CHECK(decode(bad.bytes).error.find("TRANSFER record (2) whose contents do not parse") != std::string::npos);
    }
    SUBCASE("an output whose length disagrees with its header") {
        Stream s;
        s.begin().case_begin("fast", "7").add(RecordType::Output, output_prefix(0, 10) + "abc").case_end().end();
        CHECK(decode(s.bytes).error.find("does not match") != std::string::npos);
    }
    SUBCASE("an oversized record") {
        Stream s;
        s.begin().add(RecordType::Fault, fault_payload(std::string(5000, 'f'))).end();
        DecoderLimits small;
        small.max_record_bytes = 1000;
        RunLog log = decode(s.bytes, nullptr, small);
        CHECK(log.error.find("larger than the limit of 1000 bytes") != std::string::npos);
        CHECK(decode(s.bytes).complete);  // under the default cap
    }
    SUBCASE("an oversized output") {
        Stream s;
        s.begin().case_begin("fast", "7").output(0, std::string(2000, 'o')).case_end().end();
        DecoderLimits small;
        small.max_output_bytes = 1000;
        CHECK(decode(s.bytes, nullptr, small).error.find("OUTPUT record") != std::string::npos);
    }
    SUBCASE("a stream cut inside a header or a payload") {
        const std::string s = full_run().bytes;
        for (size_t cut : {size_t(5), size_t(30), s.size() - 3}) {
            RunLog log = decode(s.substr(0, cut));
            INFO("cut at " << cut);
            CHECK_FALSE(log.complete);
            CHECK(log.error.find("in the middle of a record") != std::string::npos);
        }
    }
}

TEST_CASE("channel: kernel names are capped and flagged") {
    const std::string long_name(5000, 'k');
    MemoryStore store;
    Stream s;
    s.begin().kernel(long_name).kernel("short").end();
    RunLog log = decode(s.bytes, &store);
    REQUIRE(log.complete);
    REQUIRE(log.kernels_outside_cases.size() == 2);
    CHECK(log.kernels_outside_cases[0].name.size() == kMaxKernelName);
    CHECK(log.kernels_outside_cases[0].truncated);
    CHECK(log.kernels_outside_cases[1].name == "short");  // the next record is intact
    CHECK_FALSE(log.kernels_outside_cases[1].truncated);

    // A name over the cap written by hand is refused.
    Stream bad;
    bad.begin().add(RecordType::Kernel, PayloadWriter().str(long_name).u32(0).u64(1).u64(2).bytes()).end();
    CHECK(decode(bad.bytes).error.find("KERNEL record (1) whose contents do not parse") != std::string::npos);
}

TEST_CASE("channel: the grammar") {
    auto error_of = [](Stream& s) { return decode(s.bytes).error; };
    SUBCASE("a record after the end of the run") {
        Stream s;
        s.begin().end().kernel("late");
        CHECK(error_of(s).find("KERNEL record arrived after the end of the run") != std::string::npos);
    }
    SUBCASE("no end of the run") {
        Stream s;
        s.begin().case_begin("fast", "7").case_end();
        CHECK(error_of(s).find("without finishing its run") != std::string::npos);
    }
    SUBCASE("the stream ends inside a case") {
        Stream s;
        s.begin().case_begin("fast", "1000x7").output(0, "abcd");
        RunLog log = decode(s.bytes);
        CHECK(log.error.find("during variant fast at size 1000x7") != std::string::npos);
        REQUIRE(log.cases.size() == 1);
        CHECK_FALSE(log.cases[0].ended);
    }
    SUBCASE("ready to be timed: once, after the GPU opened, never inside a repetition; the repetitions before it counted") {
        Stream ok;
        ok.begin().add(RecordType::DeviceReady).case_begin("fast", "8").rep_begin(0).rep_end(0).add(RecordType::TimingReady)
            .rep_begin(1).rep_end(1).case_end().end();
        const RunLog log = decode(ok.bytes);
        CHECK(log.complete);
        CHECK(log.timing_ready);
        CHECK(log.reps_before_timing_ready == 1);
        Stream early, twice, inside;
        early.begin().add(RecordType::TimingReady).end();
        twice.begin().add(RecordType::DeviceReady).add(RecordType::TimingReady).add(RecordType::TimingReady).end();
        inside.begin().add(RecordType::DeviceReady).case_begin("fast", "8").rep_begin(0).add(RecordType::TimingReady);
        for (Stream* s : {&early, &twice, &inside}) CHECK(error_of(*s).find("ready to be timed") != std::string::npos);
    }
    SUBCASE("nothing at all") {
        Stream s;
        CHECK(error_of(s).find("sent nothing") != std::string::npos);
    }
    SUBCASE("something before RUN_BEGIN") {
        Stream s;
        s.kernel("early").begin().end();
        CHECK(error_of(s).find("began with a KERNEL record") != std::string::npos);
    }
    SUBCASE("another protocol") {
        Stream s;
        s.add(RecordType::RunBegin, run_begin_payload(kProtocolVersion + 1)).end();
        CHECK(error_of(s).find("protocol") != std::string::npos);
    }
    SUBCASE("an output outside a case") {
        Stream s;
        s.begin().output(0, "x").end();
        CHECK(error_of(s).find("outside a case") != std::string::npos);
    }
    SUBCASE("outputs out of order") {
        Stream s;
        s.begin().case_begin("fast", "7").output(1, "x").case_end().end();
        CHECK(error_of(s).find("output 1 of case fast_7 arrived where output 0 was expected") != std::string::npos);
    }
    SUBCASE("an output inside a repetition") {
        Stream s;
        s.begin().case_begin("fast", "7").rep_begin(0).output(0, "x").rep_end(0).case_end().end();
        CHECK(error_of(s).find("inside a timed repetition") != std::string::npos);
    }
    SUBCASE("repetitions must be paired and numbered") {
        Stream a;
        a.begin().case_begin("fast", "7").rep_end(0).case_end().end();
        CHECK(error_of(a).find("ended without having begun") != std::string::npos);
        Stream b;
        b.begin().case_begin("fast", "7").rep_begin(0).rep_begin(1);
        CHECK(error_of(b).find("began inside repetition 0") != std::string::npos);
        Stream c;
        c.begin().case_begin("fast", "7").rep_begin(1);
        CHECK(error_of(c).find("where repetition 0 was expected") != std::string::npos);
        Stream d;
        d.begin().case_begin("fast", "7").rep_begin(0).case_end().end();
        CHECK(error_of(d).find("ended inside timed repetition 0") != std::string::npos);
        Stream e;
        e.begin().case_begin("fast", "7").rep_begin(0).rep_end(1);
        CHECK(error_of(e).find("repetition 1 ended without having begun") != std::string::npos);
    }
    SUBCASE("nested cases and a stray end") {
        Stream a;
        a.begin().case_begin("fast", "7").case_begin("fast", "8");
        CHECK(error_of(a).find("before the previous one (fast_7) ended") != std::string::npos);
        Stream b;
        b.begin().case_end();
        CHECK(error_of(b).find("had not begun") != std::string::npos);
    }
    SUBCASE("timed outputs must match a checked output and an ended repetition") {
        Stream a;
        a.begin().case_begin("fast", "7").output(0, "abcd").rep_begin(0).rep_end(0).timed(0, 0, "abcde").case_end().end();
        CHECK(error_of(a).find("larger than the checked one") != std::string::npos);
        Stream sample;  // a sample of the checked output (fresh inputs) is smaller, and fine
        sample.begin().case_begin("fast", "7").output(0, "abcd").rep_begin(0).rep_end(0).timed(0, 0, "ab").case_end().end();
        CHECK(error_of(sample).empty());
        Stream b;
        b.begin().case_begin("fast", "7").output(0, "abcd").timed(0, 0, "abce").case_end().end();
        CHECK(error_of(b).find("before that repetition ended") != std::string::npos);
        Stream c;
        c.begin().case_begin("fast", "7").output(0, "abcd").rep_begin(0).rep_end(0).timed(1, 0, "abce");
        CHECK(error_of(c).find("no such checked output") != std::string::npos);
        Stream d;
        d.begin().case_begin("fast", "7").output(0, "abcd").rep_begin(0).rep_end(0).timed(0, 0, "abce").timed(0, 0, "abcf");
        CHECK(error_of(d).find("arrived twice") != std::string::npos);
    }
    SUBCASE("case names end up in file names: plain ones only") {
        for (auto [v, z] : {std::pair<std::string, std::string>{"../x", "7"}, {"fast", "7/8"}, {"", "7"}, {"a b", "7"}}) {
            Stream s;
            s.begin().case_begin(v, z).case_end().end();
            CHECK(error_of(s).find("unexpected characters") != std::string::npos);
        }
    }
    SUBCASE("kernels, transfers and faults between cases are kept apart") {
        Stream s;
        s.begin()
            .add(RecordType::Transfer, transfer_payload("cudaMallocHost", Direction::HostAlloc, 64))
            .add(RecordType::Fault, fault_payload("dropped"))
            .case_begin("fast", "7")
            .case_end()
            .kernel("after")
            .end();
        RunLog log = decode(s.bytes);
        REQUIRE(log.complete);
        REQUIRE(log.transfers_outside_cases.size() == 1);
        CHECK(log.transfers_outside_cases[0].direction == Direction::HostAlloc);
        CHECK(log.faults_outside_cases.size() == 1);
        CHECK(log.kernels_outside_cases.size() == 1);
        CHECK(log.cases[0].kernels.empty());
    }
}

TEST_CASE("channel: the grader's reader stores outputs in its folder and enforces its cap") {
    const std::string dir = scratch_dir();
    SUBCASE("a whole run") {
        int p[2];
        REQUIRE(pipe(p) == 0);
        const std::string s = full_run().bytes;
        std::thread writer([&] {
            (void)!write(p[1], s.data(), s.size());
            close(p[1]);
        });
        RunLog log = grading::read_channel(p[0], dir);
        writer.join();
        INFO(log.error);
        CHECK(log.complete);
        CHECK(log.bytes == s.size());
        CHECK(slurp(dir + "/fast_1000_0.bin") == "ABCD");
        CHECK(slurp(dir + "/fast_1000_0.rep1.bin") == "ABCE");
        CHECK(slurp(dir + "/fast_1000_faults.txt") == "2 bytes written after the end of a buffer\n");
        CHECK(fcntl(p[0], F_GETFD) < 0);  // the reader closed its end
    }
    SUBCASE("more than the cap: reading stops and the writer gets EPIPE") {
        signal(SIGPIPE, SIG_IGN);
        int p[2];
        REQUIRE(pipe(p) == 0);
        grading::ChannelLimits limits;
        limits.max_total_bytes = 1 << 20;
        int write_errno = 0;
        std::thread writer([&] {
            Stream s;
            s.begin().case_begin("fast", "7");
            for (int round = 0; round < 100 && !write_errno; ++round) {
                for (int i = 0; i < 64; ++i) s.kernel(std::string(4000, 'k'));
                if (write(p[1], s.bytes.data(), s.bytes.size()) < 0) write_errno = errno;
                s.bytes.clear();
            }
            close(p[1]);
        });
        RunLog log = grading::read_channel(p[0], dir, limits);
        writer.join();
        CHECK_FALSE(log.complete);
        CHECK(log.error.find("more than 1 MiB") != std::string::npos);
        CHECK(write_errno == EPIPE);
    }
    SUBCASE("a pipe that stays open after the run ended") {
        int p[2];
        REQUIRE(pipe(p) == 0);
        Stream s;
        s.begin().end();
        (void)!write(p[1], s.bytes.data(), s.bytes.size());
        grading::ChannelReader reader(p[0], dir);
        RunLog log = reader.finish(0.2);
        close(p[1]);
        CHECK_FALSE(log.complete);
        CHECK(log.error.find("stayed open") != std::string::npos);
    }
    SUBCASE("a silent pipe that stays open") {
        int p[2];
        REQUIRE(pipe(p) == 0);
        grading::ChannelReader reader(p[0], dir);
        RunLog log = reader.finish(0.1);
        close(p[1]);
        CHECK(log.error.find("sent nothing") != std::string::npos);
    }
    std::string cmd = "rm -rf '" + dir + "'";
    CHECK(std::system(cmd.c_str()) == 0);
}

TEST_CASE("channel: the program's writer frames what the harness and the trace library send") {
    int p[2];
    REQUIRE(pipe(p) == 0);
    // Before open: a trace announcement and a copy made before main are kept.
    const std::string ready = trace_ready_payload(1);
    CHECK(cudalabs_channel_write(static_cast<uint32_t>(RecordType::TraceReady), ready.data(), ready.size()) == 0);
    write_transfer("cudaMemcpy", Direction::HostToDevice, 12);
    CHECK_THROWS_AS(open(-1), cudalabs::UsageError);
    open(p[1]);
    CHECK(active());
    write(RecordType::CaseBegin, case_begin_payload("simple", "9"));
    const float got[3] = {1, 2, 3};
    write_output(0, got, sizeof got);
    write(RecordType::RepBegin, rep_begin_payload(0, true));
    const std::string k = kernel_payload("_Z1kv", 5, 9);
    CHECK(cudalabs_channel_write(static_cast<uint32_t>(RecordType::Kernel), k.data(), k.size()) == 0);
    // The exported entry takes only the trace library's records, well formed.
    const std::string fault = fault_payload("forged");
    CHECK(cudalabs_channel_write(static_cast<uint32_t>(RecordType::Fault), fault.data(), fault.size()) == -1);
    CHECK(cudalabs_channel_write(static_cast<uint32_t>(RecordType::Kernel), k.data(), k.size() - 1) == -1);
    write(RecordType::RepEnd, rep_end_payload(0));
    write_timed_output(0, 0, got, sizeof got);
    write(RecordType::CaseEnd, "");
    finish();
    CHECK_FALSE(active());
    // After the end nothing more is written.
    CHECK(cudalabs_channel_write(static_cast<uint32_t>(RecordType::Kernel), k.data(), k.size()) == 0);
    write(RecordType::Fault, fault_payload("late"));

    std::string stream;
    char buf[4096];
    for (ssize_t n; (n = read(p[0], buf, sizeof buf)) > 0;) stream.append(buf, static_cast<size_t>(n));
    close(p[0]);
    MemoryStore store;
    RunLog log = decode_all(stream, store);
    INFO(log.error);
    REQUIRE(log.complete);
    CHECK(log.trace_ready);
    REQUIRE(log.transfers_outside_cases.size() == 1);
    CHECK(log.transfers_outside_cases[0].bytes == 12);
    REQUIRE(log.cases.size() == 1);
    REQUIRE(log.cases[0].reps.size() == 1);
    CHECK(log.cases[0].reps[0].warmup);
    REQUIRE(log.cases[0].reps[0].kernels.size() == 1);
    CHECK(log.cases[0].reps[0].kernels[0].name == "_Z1kv");
    CHECK(store.files["simple_9_0.bin"] == std::string(reinterpret_cast<const char*>(got), sizeof got));
    CHECK(store.files.count("simple_9_0.rep0.bin") == 1);
}
