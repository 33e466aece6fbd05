// The lab framework: a lab's driver declares its shape, its variants (each a name, a line of
// description and the function that runs it at one size), its sizes, targets and contrasts;
// run_lab() owns everything else (options, the GPU, the yardsticks, timing policy, the table,
// JSON/Markdown, exit codes). See labs/01-vector-add/driver.cu for the shape of a driver.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "args.h"
#include "buffers.h"
#include "check.h"
#include "gpu.h"
#include "host_array.h"
#include "host_span.h"
#include "report.h"
#include "run_hooks.h"
#include "shape.h"
#include "timing.h"
#include "validate.h"

namespace cudalabs {

class RunContext;
struct Outcome;

// What running one variant at one size produced.
struct Outcome {
    bool checked = false;          // `check` holds a comparison with the reference
    CheckResult check;
    std::vector<size_t> shape;     // for indices in messages: {rows, cols} or {depth, rows, cols}
    double time_ms = -1;           // median; < 0 when not timed
    double bytes = 0;              // bytes that must move through device memory
    double flops = 0;              // floating-point operations
    // For the roofline (report.h, Row): the problem's compulsory device-memory traffic and FP
    // operations, both, whichever of bytes/flops the rate measures; 0: not counted.
    double roofline_bytes = 0;
    double roofline_flops = 0;
    std::string note;              // shown in the table
    std::string failure;           // non-empty: the variant failed for this reason
    bool skipped = false;          // not applicable at this size (say why in note)
};

class RunContext {
public:
    RunContext(const Options& options, const DeviceSummary& device, const cudaDeviceProp& props,
               const TimingPlan& timing, const std::vector<Dims>& sizes);
    const Options& options;  // options.positional: the arguments after the options
    const DeviceSummary& device;
    const cudaDeviceProp& props;
    // The seed of the case under way's inputs: --seed, or its variant's own (--variant NAME@SEED).
    uint64_t seed() const { return case_seed_; }
    TimingPlan timing;  // repetitions and budget of every timed case (no flusher, no observer)
    // False under --reps 0: every case is checked and none timed, so a tool that watches each
    // launch (compute-sanitizer) watches the checked launch alone. time_gpu and time_host then
    // return -1 at once (not timed) and launch nothing.
    bool timed() const { return timing.reps > 0; }
    const std::vector<Dims>& sizes;  // every size this run goes through, in order

    // The sequence of every GPU variant: `launch` once (its outputs poisoned beforehand), wait
    // for it, let `check_outputs` read them back and check them (through check() below), and
    // time `launch` only when all of that passed. `working_set_bytes`: see time_gpu.
    template <class Launch, class CheckOutputs>
    void run_checked(Outcome& out, Launch&& launch, CheckOutputs&& check_outputs, double working_set_bytes);

    // The usual case: one device output, poisoned here, compared with `expected` (count
    // elements); `shape` names indices in messages ({rows, cols}...).
    template <class T, class R, class Launch>
    void run_checked(Outcome& out, Launch&& launch, DeviceBuffer<T>& output, const R* expected, Tolerance tol,
                     double working_set_bytes, std::vector<size_t> shape = {});

    // The same sequence for a variant timed on the host clock (host code, or work that
    // allocates, copies or synchronises itself): `work` once (its outputs poisoned beforehand),
    // wait for the device, `check_outputs`, and time `work` with time_host only when all of that
    // passed.
    template <class Work, class CheckOutputs>
    void run_checked_host(Outcome& out, Work&& work, CheckOutputs&& check_outputs);

    // A call that works on host arrays the GPU reads and writes directly (lab 06's mapped and
    // streamed transfers: pinned or mapped memory): runs as in run_checked_host. `inputs` are
    // what it hands to the GPU, `output` where the GPU leaves its result, `hidden` the driver's
    // own data it has no reason to read (the expected values, the inputs as first made). The
    // installed RunHooks may watch the call and its timed repetitions
    // (RunHooks::host_call_started), and may keep the CPU from reading any of them meanwhile.
    template <class Work, class CheckOutputs>
    void run_host_call(Outcome& out, const std::vector<HostSpan>& inputs, HostSpan output, Work&& work,
                       CheckOutputs&& check_outputs, const std::vector<HostSpan>& hidden = {});

    // A host round trip: `work` does the variant's whole job on host arrays -- allocate, copy
    // `inputs` in, compute on the device, copy the result back into `output`, free -- and runs as
    // in run_host_call. The installed RunHooks may also hold it to its copies: its output is then
    // to be exactly the bytes its code copied back from the device, and its copies to the device
    // only the inputs' own bytes.
    template <class Work, class CheckOutputs>
    void run_round_trip(Outcome& out, const std::vector<HostSpan>& inputs, HostSpan output, Work&& work,
                        CheckOutputs&& check_outputs, const std::vector<HostSpan>& hidden = {});

    // Median time of `launch` in ms. `working_set_bytes` is what one launch touches: when it
    // would fit in L2, the cache is flushed before every repetition. The installed RunHooks may
    // observe every repetition, warm-up included (RunHooks::repetitions_timed).
    template <class Launch>
    double time_gpu(Launch&& launch, double working_set_bytes) {
        if (!timed()) return -1;
        TimingPlan plan = timing;
        plan.flusher = flusher_for(working_set_bytes);
        std::unique_ptr<RepetitionObserver> observer = run_hooks().repetitions_timed(plan, true);
        plan.observer = observer.get();
        return time_gpu_ms(launch, plan);
    }
    template <class Work>
    double time_host(Work&& work) {
        if (!timed()) return -1;
        TimingPlan plan = timing;
        std::unique_ptr<RepetitionObserver> observer = run_hooks().repetitions_timed(plan, false);
        plan.observer = observer.get();
        return time_host_ms(work, plan);
    }

    // Checks `count` outputs against the reference and records the result in `out`. Every lab
    // checks through here (not check_values directly): each checked output is reported to the
    // installed RunHooks, which may hand back outputs to judge in its place and after it (ones
    // another run of the same case stored: RunHooks::output_checked). A case may call check
    // several times (several outputs, always in the same order); the first failure is kept.
    template <class T, class R>
    void check(Outcome& out, const T* got, const R* expected, size_t count, Tolerance tol,
               std::vector<size_t> shape = {}) {
        const int k = checks_in_case_++;
        const size_t bytes = count * sizeof(T);
        std::vector<StoredOutput> stored =
            run_hooks().output_checked({k, got, bytes, sizeof(T), element_kind<T>(), tol});
        auto next = stored.begin();
        std::vector<unsigned char> other;
        const T* judged = got;
        if (next != stored.end() && next->repetition.empty()) {  // it stands in for `got`
            if (!next->read(other)) {
                record_failure(out, next->missing);
                return;
            }
            judged = reinterpret_cast<const T*>(other.data());
            ++next;
        }
        keep_check(out, check_values(judged, expected, count, tol), shape);
        for (; next != stored.end(); ++next) {
            if (!next->read(other)) {
                record_failure(out, next->missing);
                continue;
            }
            CheckResult again = check_values(reinterpret_cast<const T*>(other.data()), expected, count, tol);
            if (!again.ok())
                record_failure(out, next->repetition + " produced a wrong result: " +
                                        (again.never_written() ? std::string("output never written") : describe_failure(again, shape)));
        }
    }

    // Called by the runner before and after each case. end_case fails the case when its device
    // buffers found an out-of-bounds write or a changed input (--guard-buffers, buffers.h), or
    // the installed RunHooks found a fault (RunHooks::case_ended).
    void begin_case(const std::string& variant, const Dims& dims);
    void end_case(Outcome& out);

private:
    L2Flusher* flusher_for(double working_set_bytes);
    // Keeps `result` in `out` unless an earlier check of the case failed.
    static void keep_check(Outcome& out, const CheckResult& result, const std::vector<size_t>& shape);
    static void record_failure(Outcome& out, const std::string& why);
    std::unique_ptr<L2Flusher> flusher_;
    int checks_in_case_ = 0;
    uint64_t case_seed_ = options.seed;  // (begin_case sets each case's)
};

// What a lab declares besides its variants and shape (shared by Lab and LabOf<S>).
struct LabDeclaration {
    std::string number;          // "01": the marker is TODO(lab01)
    std::string name;            // "01-vector-add"
    std::string title;           // one line for --help and the report
    std::string size_help;       // what N, NxM, NxMxK mean for this lab
    std::string positional_help; // non-empty: the lab takes positional arguments (lab 05)
    std::vector<Dims> check_sizes;  // default run: correctness, awkward shapes included
    std::vector<Dims> bench_sizes;  // --bench
    std::vector<Dims> quick_sizes;  // --quick (compute-sanitizer)
    std::string ratio_to;           // empty: measured copy bandwidth (GB/s)
    // Judged in benchmark runs: a variant at a size reaches min_ratio of a yardstick variant, of
    // another variant, or of the measured copy bandwidth (kCopyYardstick). Checked at start.
    std::vector<Target> bench_targets;
    // Pairs of variants the lesson compares (report.h): their gain is shown after the table.
    std::vector<Contrast> contrasts;
    // Optional: the size that the positional arguments stand for (they are refused otherwise;
    // --size, --bench and --quick cannot be combined with them). Throws UsageError.
    std::function<Dims(const std::vector<std::string>&)> size_from_positional;
    // Optional: print lab-specific material before the table (after the device header) and
    // after the verdict (a bar chart, an explanation of the numbers).
    std::function<void(RunContext& ctx, std::ostream& out)> prologue;
    std::function<void(const Report& report, std::ostream& out)> epilogue;
    // The lab's cases run work on several streams at once (lab 06's overlap): its programs keep
    // CUDA's default hardware work queues. Every other lab's programs open the GPU with one.
    bool concurrent_streams = false;
};

// One variant as a driver declares it. `S` is the lab's shape (shape.h).
template <class S>
struct VariantOf {
    std::string name;         // used by --variant and in TODO hints: keep it one word
    std::string description;  // one line for --help
    // Runs the variant at one size: data, launch, check and timing (usually through
    // RunContext::run_checked). Throws for what makes the case fail (CudaError...).
    std::function<Outcome(const S&, RunContext&)> run;
    bool yardstick = false;   // a reference implementation (cuBLAS...): ratios are against it
    // The yardstick variant this one is compared with; empty: the lab's first yardstick.
    std::string compare_with = "";
    std::string element = "float";  // the element type it computes in
};

// A lab as its driver declares it: main() fills one in and returns run_lab(lab, argc, argv).
template <class S>
struct LabOf : LabDeclaration {
    std::vector<VariantOf<S>> variants;
    // How a size becomes an S; by default S::parse. Throws UsageError.
    std::function<S(const Dims&)> parse = [](const Dims& d) { return S::parse(d); };
    // Optional: more checks of a parsed size (limits of this lab). Throws UsageError.
    std::function<void(const S&)> check;
    // Device memory one case needs, in bytes, checked against free memory before anything runs.
    std::function<double(const S&, const Options&)> device_bytes;
};

// The lab as the runner sees it: every size still as extents.
struct Variant {
    std::string name, description;
    bool yardstick = false;
    std::string compare_with, element;
    std::function<Outcome(const Dims&, RunContext&)> run;
};
struct Lab : LabDeclaration {
    std::vector<Variant> variants;
    std::function<void(const Dims&)> check_dims;  // throws UsageError
    std::function<double(const Dims&, const Options&)> device_bytes;
};

template <class S>
Lab untyped(const LabOf<S>& typed) {
    Lab lab;
    static_cast<LabDeclaration&>(lab) = typed;
    const auto parse = typed.parse;
    const auto check = typed.check;
    lab.check_dims = [parse, check](const Dims& d) {
        const S s = parse(d);
        if (check) check(s);
    };
    if (typed.device_bytes)
        lab.device_bytes = [parse, bytes = typed.device_bytes](const Dims& d, const Options& o) { return bytes(parse(d), o); };
    for (const VariantOf<S>& v : typed.variants)
        lab.variants.push_back({v.name, v.description, v.yardstick, v.compare_with, v.element,
                                [parse, run = v.run](const Dims& d, RunContext& ctx) { return run(parse(d), ctx); }});
    return lab;
}

// Runs the lab as its main(): returns the exit code (see exit_codes.h).
int run_lab(const Lab& lab, int argc, char** argv);
template <class S>
int run_lab(const LabOf<S>& lab, int argc, char** argv) {
    return run_lab(untyped(lab), argc, argv);
}

template <class Launch, class CheckOutputs>
void RunContext::run_checked(Outcome& out, Launch&& launch, CheckOutputs&& check_outputs, double working_set_bytes) {
    launch();
    CHECK_LAUNCH();
    CUDA_CHECK(cudaDeviceSynchronize());
    check_outputs();
    if (out.checked && out.check.ok() && out.failure.empty()) out.time_ms = time_gpu(launch, working_set_bytes);
}

namespace detail {
// The watched call of run_host_call and run_round_trip: once (the watch says what it found when
// the call and the work it queued are over), then checked, then timed, watched as a plain host
// call (a round trip's output is not held to its copies in every repetition).
template <class Work, class CheckOutputs>
void run_watched_host_call(RunContext& ctx, Outcome& out, const HostCall& call, Work&& work, CheckOutputs&& check_outputs) {
    {
        std::unique_ptr<CallWatch> watch = run_hooks().host_call_started(call);
        work();
        CUDA_CHECK(cudaDeviceSynchronize());
    }
    check_outputs();
    if (!(out.checked && out.check.ok() && out.failure.empty()) || !ctx.timed()) return;
    HostCall timed = call;
    if (call.round_trip) timed.output = HostSpan{};
    timed.round_trip = false;
    std::unique_ptr<CallWatch> watch = run_hooks().host_call_started(timed);
    out.time_ms = ctx.time_host(work);
}
}  // namespace detail

template <class Work, class CheckOutputs>
void RunContext::run_host_call(Outcome& out, const std::vector<HostSpan>& inputs, HostSpan output, Work&& work,
                               CheckOutputs&& check_outputs, const std::vector<HostSpan>& hidden) {
    detail::run_watched_host_call(*this, out, HostCall{inputs, output, hidden, false}, work, check_outputs);
}

template <class Work, class CheckOutputs>
void RunContext::run_round_trip(Outcome& out, const std::vector<HostSpan>& inputs, HostSpan output, Work&& work,
                                CheckOutputs&& check_outputs, const std::vector<HostSpan>& hidden) {
    detail::run_watched_host_call(*this, out, HostCall{inputs, output, hidden, true}, work, check_outputs);
}

template <class Work, class CheckOutputs>
void RunContext::run_checked_host(Outcome& out, Work&& work, CheckOutputs&& check_outputs) {
    work();
    CUDA_CHECK(cudaDeviceSynchronize());
    check_outputs();
    if (out.checked && out.check.ok() && out.failure.empty()) out.time_ms = time_host(work);
}

template <class T, class R, class Launch>
void RunContext::run_checked(Outcome& out, Launch&& launch, DeviceBuffer<T>& output, const R* expected, Tolerance tol,
                             double working_set_bytes, std::vector<size_t> shape) {
    output.poison();
    std::vector<T> got(output.size());
    run_checked(
        out, launch,
        [&] {
            output.download(got.data());
            check(out, got.data(), expected, got.size(), tol, shape);
        },
        working_set_bytes);
}

}  // namespace cudalabs
