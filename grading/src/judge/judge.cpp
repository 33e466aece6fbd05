#include "judge/judge.h"

#include <algorithm>
#include <cstdio>

#include "fresh_inputs.h"
#include "util/files.h"
#include "util/text.h"

namespace grading {

namespace {
std::string describe(const HostTransfer& t) {
    std::string what = t.direction == "device_to_host"     ? "copied " + std::to_string(t.bytes) + " bytes from the device to the host"
                       : t.direction == "host_to_device"   ? "copied " + std::to_string(t.bytes) + " bytes from the host to the device"
                       : t.direction == "device_to_device" ? "copied " + std::to_string(t.bytes) + " bytes within the device"
                       : t.direction == "host_alloc"       ? "allocated host memory the GPU can reach"
                                                           : "copied " + std::to_string(t.bytes) + " bytes between host buffers";
    return "your code " + what + " (" + t.api + ")";
}

std::string ms(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.4f ms", v);
    return buf;
}
}  // namespace

double median_value(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const size_t m = v.size();
    return m % 2 ? v[m / 2] : 0.5 * (v[m / 2 - 1] + v[m / 2]);
}

const HostTransfer* forbidden_transfer(const std::vector<HostTransfer>& transfers, HostTransfers rule) {
    // A copy engine moves data untimed and without a kernel: under `none` no copy at all may do
    // a kernel's work (a strided device-to-device copy is a transpose). A plain copy within the
    // device into memory that is no output (device_to_scratch: inputs staged in scratch or
    // __constant__ memory) only moves bytes unchanged, and a kernel must still write the output:
    // allowed everywhere (a performance test charges its time, judge_performance).
    // A host round trip that broke its rule (grading/harness/round_trip.h) breaks every rule.
    for (const HostTransfer& t : transfers)
        if (t.direction == "round_trip_breach") return &t;
    for (const HostTransfer& t : transfers) {
        if (rule == HostTransfers::Allowed || t.direction == "device_to_scratch") continue;
        if (rule == HostTransfers::ToDevice && t.direction == "host_to_device") continue;
        return &t;
    }
    return nullptr;
}

RowJudgement judge_row(const RowEvidence& row, HostTransfers rule, bool require_kernels) {
    RowJudgement j;
    if (!row.verified) {
        j.why = row.verifier_note.empty() ? "the output was not right" : row.verifier_note;
        j.cheats = row.verifier_note.rfind(cudalabs::kFreshInputsFault, 0) == 0;
        return j;
    }
    // The output was right: whatever fails it now is how it was made.
    const HostTransfer* t = forbidden_transfer(row.transfers, rule);
    if (t && t->direction == "round_trip_breach")
        j.why = "the output was right, but the round trip broke its rule (" + t->api +
                "): its kernels must compute the result from the inputs copied to the device, and only "
                "what comes back with cudaMemcpy counts";
    else if (t)
        j.why = "the output was right, but " + describe(*t) +
                " while this part ran: here the result must be computed by your kernels on the device";
    else if (require_kernels && !row.foreign_kernel.empty())
        j.why = "the output was right, but a kernel your file did not compile ran in it (" + row.foreign_kernel +
                "): a library's kernels (cuBLAS, thrust or cub built elsewhere) do not count, however they are reached";
    else if (require_kernels && !row.kernel_ran)
        j.why = "the output was right, but none of the kernels in your file ran on the GPU: results computed on the "
                "CPU, copied, or written by other means do not count";
    j.passed = j.why.empty();
    j.cheats = !j.passed;
    return j;
}

namespace {
// Copies into scratch memory (device_to_scratch) run on a copy engine, outside the kernels' time:
// each side is charged what the measured copy takes for those bytes, read and written.
PerformanceEvidence with_staging_charged(PerformanceEvidence e) {
    for (PerformanceRound& r : e.rounds)
        for (TimedRun* t : {&r.reference, &r.student})
            if (t->staged_bytes > 0 && e.copy_gbs > 0) t->kernel_ns += 2 * t->staged_bytes / e.copy_gbs;  // bytes / (GB/s) = ns
    return e;
}
}  // namespace

PerformanceJudgement judge_performance(const PerformanceEvidence& measured_evidence, const Curve& curve,
                                       double plausible_bandwidth, double plausible_flop_rate) {
    const PerformanceEvidence e = with_staging_charged(measured_evidence);
    PerformanceJudgement j;
    std::vector<double> ratios, student_times, reference_times;
    std::string text;
    // The reference's own FLOP rate in this run: a kernel many times faster than the reference
    // solution on the same GPU did not compute what it claims.
    double reference_ms = 0;
    int measured = 0;
    for (const PerformanceRound& r : e.rounds)
        if (r.reference.repetitions > 0 && r.reference.kernel_ns > 0) {
            reference_ms += r.reference.per_rep_ms();
            ++measured;
        }
    if (measured) reference_ms /= measured;
    const double memory_floor = e.bytes > 0 && e.copy_gbs > 0 ? e.bytes / (e.copy_gbs * 1e9 * plausible_bandwidth) * 1e3 : 0;
    const double compute_floor = e.flops > 0 && reference_ms > 0 ? reference_ms / plausible_flop_rate : 0;
    j.floor_ms = std::max(memory_floor, compute_floor);
    // Said in terms of the floor that binds.
    const std::string floor_reason =
        memory_floor >= compute_floor
            ? std::to_string(static_cast<long long>(e.bytes)) + " bytes at " + std::to_string(static_cast<long long>(e.copy_gbs * plausible_bandwidth)) +
                  " GB/s, " + number_text(plausible_bandwidth) + "x the copy bandwidth measured on this GPU"
            : std::string("the work at ") + number_text(plausible_flop_rate) + "x the reference solution's measured FLOP rate on this GPU";
    for (size_t i = 0; i < e.rounds.size(); ++i) {
        const PerformanceRound& r = e.rounds[i];
        std::string round = "round " + std::to_string(i + 1) + ": ";
        if (r.student.launches == 0 || r.student.repetitions == 0) {
            j.text += round + "none of your kernels ran in the timed repetitions\n";
            return j;
        }
        if (r.reference.launches == 0 || r.reference.kernel_ns <= 0) {
            j.text += round + "the reference recorded no kernel time (a grader problem: ask your instructor)\n";
            return j;
        }
        const double student = r.student.per_rep_ms(), reference = r.reference.per_rep_ms();
        j.text += round + "yours " + ms(student) + " per repetition (" + std::to_string(r.student.launches) + " launches in " +
                  std::to_string(r.student.repetitions) + " repetitions" +
                  (r.student.staged_bytes > 0 ? ", copies into scratch memory charged at the measured copy bandwidth" : "") +
                  "), reference " + ms(reference) + "\n";
        if (j.floor_ms > 0 && student < j.floor_ms) {
            j.tampering = true;
            j.text += "TAMPERING: " + ms(student) + " per repetition is below the fastest time this GPU allows for the work (" +
                      ms(j.floor_ms) + ": " + floor_reason + "): the measurement was forged, so this test scores 0\n";
            j.fraction = 0;
            return j;
        }
        ratios.push_back(student / reference);
        student_times.push_back(student);
        reference_times.push_back(reference);
    }
    if (ratios.empty()) return j;
    j.slowdown = median_value(ratios);
    j.ratios = ratios;
    j.student_round_ms = student_times;
    j.reference_round_ms = reference_times;
    j.fraction = curve.fraction(j.slowdown);
    char buf[160];
    std::snprintf(buf, sizeof buf, "%.2fx the reference's kernel time (median of %zu rounds) -> %.0f%% of the points\n",
                  j.slowdown, ratios.size(), 100 * j.fraction);
    j.text += buf;
    j.student_ms = median_ms(e, false);
    j.reference_ms = median_ms(e, true);
    j.text += scorecard_lines(e, j.student_ms, j.reference_ms);
    return j;
}

// The median over rounds of one side's time per repetition.
double median_ms(const PerformanceEvidence& e, bool reference) {
    std::vector<double> t;
    for (const PerformanceRound& r : e.rounds) {
        const TimedRun& run = reference ? r.reference : r.student;
        if (run.repetitions > 0 && run.kernel_ns > 0) t.push_back(run.per_rep_ms());
    }
    return t.empty() ? 0 : median_value(t);
}

std::string scorecard_lines(const PerformanceEvidence& e, double student_ms, double reference_ms) {
    if (student_ms <= 0 || reference_ms <= 0) return "";
    std::string text;
    char buf[240];
    if (e.bytes > 0) {
        const double yours = e.bytes / (student_ms * 1e6), theirs = e.bytes / (reference_ms * 1e6);  // GB/s
        if (e.copy_gbs > 0)
            std::snprintf(buf, sizeof buf,
                          "scorecard: yours moves %.0f GB/s, %.0f%% of the %.0f GB/s this GPU copies at; the reference %.0f GB/s (%.0f%%)\n",
                          yours, 100 * yours / e.copy_gbs, e.copy_gbs, theirs, 100 * theirs / e.copy_gbs);
        else
            std::snprintf(buf, sizeof buf, "scorecard: yours moves %.0f GB/s; the reference %.0f GB/s\n", yours, theirs);
        text += buf;
    }
    if (e.flops > 0) {
        std::snprintf(buf, sizeof buf, "scorecard: yours computes %.0f GFLOP/s; the reference %.0f GFLOP/s\n",
                      e.flops / (student_ms * 1e6), e.flops / (reference_ms * 1e6));
        text += buf;
    }
    return text;
}

}  // namespace grading
