#include "util/breakdown.h"

#include "util/text.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <sstream>

namespace grading {

namespace {

const char* const kRunKindNames[4] = {"program", "sanitizer", "reference", "verifier"};

double rounded(double s) { return static_cast<double>(static_cast<long long>(s * 1000 + 0.5)) / 1000; }

}  // namespace

void SubmissionTiming::add_run(RunKind kind, double seconds, double cuda_start_s) {
    if (!current) return;  // a run outside any test (the self-test's)
    const size_t k = static_cast<size_t>(kind);
    current->run_s[k] += seconds;
    current->runs[k] += 1;
    if (cuda_start_s < 0) return;
    current->cuda_start_s += cuda_start_s;
    current->cuda_starts += 1;
}

void SubmissionTiming::add_verifier_processes(size_t started) {
    if (current) current->verifier_processes += started;
}

void SubmissionTiming::add_wait(double seconds) {
    if (!current) return;
    current->wait_gpu_s += seconds;
    wait_gpu_s += seconds;
}

void SubmissionTiming::add_alone(double waited, double held) {
    add_wait(waited);
    if (!current) return;
    current->alone_s += held;
    current->alone_turns += 1;
}

std::string breakdown_json(const SubmissionTiming& t) {
    nlohmann::json j = {{"student", t.student},
                        {"lane", t.lane},
                        {"compile_s", rounded(t.compile_s)},
                        {"build_reused", t.build_reused},
                        {"audit_s", rounded(t.audit_s)},
                        {"link_s", rounded(t.link_s)},
                        {"sandbox_s", rounded(t.sandbox_s)},
                        {"wait_gpu_s", rounded(t.wait_gpu_s)},
                        {"results_s", rounded(t.results_s)},
                        {"total_s", rounded(t.total_s)}};
    j["tests"] = nlohmann::json::array();
    for (const TestTiming& test : t.tests) {
        nlohmann::json tj = {{"id", test.id},
                             {"alone", test.alone},
                             {"wall_s", rounded(test.wall_s)},
                             {"wait_gpu_s", rounded(test.wait_gpu_s)},
                             {"alone_s", rounded(test.alone_s)},
                             {"alone_turns", test.alone_turns},
                             {"cuda_start_s", rounded(test.cuda_start_s)},
                             {"cuda_starts", test.cuda_starts},
                             {"verifier_processes", test.verifier_processes}};
        for (size_t k = 0; k < 4; ++k) {
            tj[std::string(kRunKindNames[k]) + "_s"] = rounded(test.run_s[k]);
            tj[std::string(kRunKindNames[k]) + "_runs"] = test.runs[k];
        }
        j["tests"].push_back(tj);
    }
    return json_text(j);
}

std::string breakdown_table(const std::vector<SubmissionTiming>& all, double wall_s, double sandbox_start_s) {
    struct Row {
        std::string name;
        double total = 0;
    };
    std::vector<Row> rows = {{"compile"}, {"audit"}, {"link"}, {"sandbox folders"}, {"waiting for the GPU"}};
    for (const char* k : kRunKindNames) rows.push_back({std::string(k) + " runs"});
    rows.push_back({"tests, other"});
    rows.push_back({"writing results"});
    size_t reused = 0, alone_turns = 0, cuda_starts = 0, verifications = 0;
    size_t processes[4] = {0, 0, 0, 0};  // by RunKind: the verifier's processes, not its verifications
    double alone_s = 0, cuda_start_s = 0;
    for (const SubmissionTiming& t : all) {
        for (const TestTiming& test : t.tests) {
            for (size_t k = 0; k < 3; ++k) processes[k] += test.runs[k];
            processes[3] += test.verifier_processes;
            verifications += test.runs[3];
            alone_s += test.alone_s;
            alone_turns += test.alone_turns;
            cuda_start_s += test.cuda_start_s;
            cuda_starts += test.cuda_starts;
        }
        rows[0].total += t.compile_s;
        rows[1].total += t.audit_s;
        rows[2].total += t.link_s;
        rows[3].total += t.sandbox_s;
        rows[4].total += t.wait_gpu_s;
        for (const TestTiming& test : t.tests) {
            for (size_t k = 0; k < 4; ++k) rows[5 + k].total += test.run_s[k];
            rows[9].total += std::max(0.0, test.wall_s - test.wait_gpu_s - test.runs_total_s());
        }
        rows[10].total += t.results_s;
        reused += t.build_reused;
    }
    const double n = all.empty() ? 1 : static_cast<double>(all.size());
    std::ostringstream out;
    char line[200];
    out << "Where the time went (" << all.size() << " submissions, " << reused << " builds reused; seconds, summed over submissions "
        << "that ran at once):\n";
    std::snprintf(line, sizeof line, "  %-22s %10s %12s\n", "phase", "total s", "per subm. s");
    out << line;
    for (const Row& r : rows) {
        std::snprintf(line, sizeof line, "  %-22s %10.1f %12.2f\n", r.name.c_str(), r.total, r.total / n);
        out << line;
    }
    const size_t sandboxed_runs = processes[0] + processes[1];  // the program's and the sanitizer's
    if (sandbox_start_s > 0) {
        const double starts = sandbox_start_s * static_cast<double>(sandboxed_runs);
        std::snprintf(line, sizeof line, "  %-22s %10.1f %12.2f   (%zu runs x %.3f s, part of the program and sanitizer runs)\n",
                      "sandbox starts, est.", starts, starts / n, sandboxed_runs, sandbox_start_s);
        out << line;
    }
    if (cuda_starts > 0) {
        std::snprintf(line, sizeof line, "  %-22s %10.1f %12.2f   (%zu runs to their GPU open, part of the program, sanitizer and reference runs)\n",
                      "starts to the GPU open", cuda_start_s, cuda_start_s / n, cuda_starts);
        out << line;
    }
    if (alone_turns > 0) {
        // What every other lane waited for: the GPU held alone, one timed process at a time.
        std::snprintf(line, sizeof line, "  %-22s %10.1f %12.2f   (%zu timed processes, part of the program and reference runs)\n",
                      "GPU alone, timed", alone_s, alone_s / n, alone_turns);
        out << line;
    }
    const size_t gpu_processes = processes[0] + processes[1] + processes[2] + processes[3];
    if (gpu_processes > 0) {
        // Each opens the GPU, and the driver makes GPU opens one at a time for the whole machine:
        // this count bounds a machine's submissions an hour whatever its GPUs (grading/DESIGN.md).
        std::snprintf(line, sizeof line,
                      "  GPU processes: %zu, %.1f a submission (program %zu, sanitizer %zu, reference %zu, verifier %zu for %zu verifications)\n",
                      gpu_processes, static_cast<double>(gpu_processes) / n, processes[0], processes[1], processes[2], processes[3], verifications);
        out << line;
    }
    std::snprintf(line, sizeof line, "  wall %.1f s: %.0f submissions an hour\n", wall_s, wall_s > 0 ? static_cast<double>(all.size()) * 3600 / wall_s : 0.0);
    out << line;
    return out.str();
}

double steady_now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

double seconds_since(double start) { return steady_now() - start; }

}  // namespace grading
