#include "judge/test_kinds.h"

#include <unistd.h>

#include <algorithm>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <thread>

#include "runs/failures.h"
#include "judge/judge.h"
#include "judge/reference_pool.h"
#include "judge/timing.h"
#include "gpu/gpu_clocks.h"
#include "runs/runs.h"
#include "intake/seeds.h"
#include "todo_hint.h"
#include "util/files.h"
#include "util/text.h"

namespace grading {

namespace {

bool any_kernel_of(const std::vector<KernelSpan>& ran, const std::set<std::string>& mine) {
    for (const KernelSpan& k : ran)
        if (is_one_of(k, mine)) return true;
    return false;
}

std::string hint_for(const GradingContext& ctx, const GradedProgram& s, const std::string& variant) {
    return cudalabs::todo_hint(s.source_copy, s.file, "lab" + ctx.setup.cfg.lab, variant);
}

// The verifier's note without the harness's pointer into the source (the feedback adds it).
std::string short_note(const GradingContext& ctx, const std::string& note) {
    std::string n = replace_all(note, ctx.worker.priv + "/", "");
    size_t semi = n.find("; see TODO");
    return semi == std::string::npos ? n : n.substr(0, semi);
}

// A student's run (run_student: the environment's failures retried) and the verifier's verdict
// on what it sent. A run that ended cleanly with its results whole, whose verdict still misses an
// output, lost that output on the grader's side: it is made again, and is a grader error when
// it keeps happening.
struct VerifiedRun {
    ProgramRun pr;
    std::vector<RowVerdict> rows;
    bool judged = false;  // the verifier gave a verdict (the results arrived whole)
    std::string problem;  // why not
};

bool output_lost(const VerifiedRun& v) {
    if (!v.judged || !v.pr.run.ok() || !v.pr.channel_complete) return false;
    for (const RowVerdict& row : v.rows)
        if (row.note.find("no output of the expected size") != std::string::npos) return true;
    return false;
}

// `timed`, where given, runs the program's process (a timed run: with the GPU alone for its
// repetitions, through the run's gate); the verifier runs after it, outside.
VerifiedRun run_verified(GradingContext& ctx, const RunRequest& req, const std::string& variants, const std::string& sizes,
                         unsigned long long seed, std::string* log = nullptr, const TimedProcess& timed = {}) {
    VerifiedRun v;
    for (size_t attempt = 0; attempt < ctx.setup.retry.attempts(); ++attempt) {
        pause_before(ctx.setup.retry, attempt);
        v = VerifiedRun();
        if (timed)
            timed([&](TimingGate* gate) {
                RunRequest gated = req;
                gated.gate = gate;
                v.pr = run_student(ctx, gated, log);
            });
        else v.pr = run_student(ctx, req, log);
        if (!v.pr.channel_complete) {
            v.problem = "its results did not arrive whole, so none of this run counts: " + v.pr.channel_problem;
            return v;
        }
        v.judged = verify_outputs(ctx, req, v.pr, variants, sizes, seed, v.rows, v.problem);
        if (!output_lost(v)) return v;
    }
    throw GraderError("a run that ended cleanly, with all its results, still missed an output when verified, in all " +
                      std::to_string(ctx.setup.retry.attempts()) + " attempts (the grader's storage?)");
}

}  // namespace

namespace {

// What a correctness test has found so far, over its trials and variants.
struct CorrectnessTally {
    std::ostringstream out;
    size_t rows_total = 0, rows_passed = 0;
    std::string cheated;  // the first row that cheats the test (judge.h): then it scores 0
    std::map<std::string, std::pair<int, int>> trials;  // variant/size -> (trials passed, failed)
    // Variants that hung, or failed every size, are not run again (emplace keeps the first reason).
    std::map<std::string, std::string> stopped;
};

// What a run showed of one row of its verdict, for judge_row.
RowEvidence row_evidence(const GradingContext& ctx, const GradedProgram& s, const VerifiedRun& verified, const RowVerdict& row) {
    RowEvidence e;
    e.size = row.size;
    e.verified = row.status == "PASS";
    e.verifier_note = short_note(ctx, row.note);
    if (const CaseEvidence* c = verified.pr.find(row.variant, row.size)) {
        e.kernel_ran = any_kernel_of(c->kernels, s.kernels);
        if (const KernelSpan* k = ctx.setup.foreign_kernel_rule ? foreign_kernel(*c, s.kernels) : nullptr) e.foreign_kernel = k->name;
        e.transfers = c->transfers;
    }
    return e;
}

// Judges each row of variant `v` that the verifier gave a verdict on; returns how many passed.
size_t judge_variant_rows(const GradingContext& ctx, const GradedProgram& s, const TestSpec& t, const std::string& v,
                          const VerifiedRun& verified, bool kernel_rule, CorrectnessTally& tally) {
    size_t passed_here = 0;
    for (const RowVerdict& row : verified.rows) {
        if (row.variant != v) continue;
        RowJudgement j = judge_row(row_evidence(ctx, s, verified, row), t.host_transfers, kernel_rule);
        ++tally.rows_total;
        passed_here += j.passed;
        tally.rows_passed += j.passed;
        auto& count = tally.trials[v + "/" + row.size];
        (j.passed ? count.first : count.second) += 1;
        if (!j.passed) tally.out << "  FAIL at size " << row.size << ": " << j.why << "\n";
        if (j.cheats && tally.cheated.empty()) tally.cheated = v + " at size " + row.size;
    }
    return passed_here;
}

// ---- a trial of every correctness test in one process (--combine-correctness) ----
// Each correctness test's trial k is a process of its own, and a verifier process after it: most
// of a submission's GPU opens, which the driver makes one at a time for the whole machine
// (bench/results/*.grading.md). Combined, one process runs trial k of every correctness test that
// has the same sizes, each test's variants with that test's own seed (--variant NAME@SEED; the
// inputs depend only on the seed, so they are those of the test's own run), and one verifier
// judges it. Only passes are taken from it: a variant with a row that does not pass there is run
// on its own, as without the option, and judged by that run alone. A combined run that does not
// end by itself (a crash, a hang, a verifier that failed) is set aside, and the rest of the
// submission runs test by test.

// One combined run: the variants it ran with their seeds, and what it showed.
struct CombinedRun {
    std::map<std::string, unsigned long long> seeds;  // variant -> its test's seed; empty: nothing to combine, not run
    bool usable = false;  // it ended by itself (passed, or a check failed), its results whole and judged
    VerifiedRun verified;
};

}  // namespace

struct CombinedCorrectness {
    std::map<std::string, CombinedRun> runs;  // by "trial sizes"
    bool set_aside = false;                   // a combined run was not usable: no more are made
};

namespace {

// Runs one combined trial: one attempt, on the GPU as the submission's turn has it, and its
// verifier. Nothing is made again and nothing is blamed on anyone: a failure there only sends
// the tests to their own runs, which retry, settle with the GPU alone and judge as always.
CombinedRun run_combined(GradingContext& ctx, const GradedProgram& s, const TestSpec& t, int trial, unsigned long long seed,
                         const std::vector<std::string>& sizes) {
    const CombinedTrial plan = combined_trial(ctx.setup, trial, sizes);
    if (plan.tests < 2) return CombinedRun();  // nothing to combine
    CombinedRun run;
    run.seeds = plan.seeds;
    std::vector<std::string> named;
    for (const auto& [v, seed] : run.seeds) named.push_back(v + "@" + std::to_string(seed));
    const std::string variants = join(named, ","), size_list = join(sizes, ",");
    RunRequest req = correctness_request(ctx, s, t, variants, size_list, seed);
    req.timeout_s = plan.timeout_s;
    VerifiedRun& v = run.verified;
    try {
        v.pr = run_program(ctx, req);
        if (v.pr.channel_complete) v.judged = verify_outputs(ctx, req, v.pr, variants, size_list, seed, v.rows, v.problem);
    } catch (const std::exception&) {
        v.judged = false;  // (the verifier could not judge it: the tests' own runs will say)
    }
    // Ended by itself (all passed, or a check failed), its results whole and judged.
    run.usable = v.judged && program_fate(v.pr.run).empty();
    return run;
}

// The combined run of trial `trial` at `sizes` (made on first use) when `v`, with this test's
// seed, passed there at every size; else null, and the test runs `v` on its own.
const VerifiedRun* passed_combined(GradingContext& ctx, const GradedProgram& s, const TestSpec& t, int trial, unsigned long long seed,
                                   const std::vector<std::string>& sizes, const std::string& v, bool kernel_rule) {
    if (!ctx.setup.cfg.combine_correctness) return nullptr;
    if (!ctx.submission.combined_correctness) ctx.submission.combined_correctness = std::make_shared<CombinedCorrectness>();
    CombinedCorrectness& all = *ctx.submission.combined_correctness;
    const std::string key = std::to_string(trial) + " " + join(sizes, ",");
    auto it = all.runs.find(key);
    if (it == all.runs.end()) {
        if (all.set_aside) return nullptr;
        it = all.runs.emplace(key, run_combined(ctx, s, t, trial, seed, sizes)).first;
        if (!it->second.seeds.empty() && !it->second.usable) all.set_aside = true;
    }
    const CombinedRun& run = it->second;
    auto own = run.seeds.find(v);
    if (!run.usable || own == run.seeds.end() || own->second != seed) return nullptr;
    // Its rows judged as its own run's would be, on a tally of their own: kept only if all passed.
    CorrectnessTally scratch;
    return judge_variant_rows(ctx, s, t, v, run.verified, kernel_rule, scratch) == sizes.size() ? &run.verified : nullptr;
}

// One trial of variant `v` at `sizes`: run with guard zones, verified, each row judged.
void run_correctness_variant(GradingContext& ctx, const GradedProgram& s, const TestSpec& t, int trial, unsigned long long seed,
                             const std::vector<std::string>& sizes, const std::string& v, CorrectnessTally& tally) {
    std::ostringstream& out = tally.out;
    const std::string size_list = join(sizes, ",");
    if (tally.stopped.count(v)) {
        out << "trial " << trial + 1 << ", " << v << ": not run again (" << tally.stopped[v] << ")\n";
        tally.rows_total += sizes.size();
        return;
    }
    const bool kernel_rule = t.require_kernels && ctx.setup.trace_ok;
    const VerifiedRun* combined = passed_combined(ctx, s, t, trial, seed, sizes, v, kernel_rule);
    VerifiedRun own;
    if (!combined) own = run_verified(ctx, correctness_request(ctx, s, t, v, size_list, seed), v, size_list, seed);
    const VerifiedRun& verified = combined ? *combined : own;
    const ProgramRun& pr = verified.pr;
    out << "trial " << trial + 1 << ", " << v << ", seed " << seed << ", sizes " << size_list << ":\n";
    if (!pr.retry_note.empty()) out << "  " << pr.retry_note << "\n";
    if (pr.run.timed_out) tally.stopped.emplace(v, "it timed out");
    const std::string fate = program_fate(pr.run);
    if (!fate.empty()) out << "  " << fate << "\n";
    if (!verified.judged) {
        out << "  " << verified.problem << "\n";
        tally.stopped.emplace(v, "no verdict in trial " + std::to_string(trial + 1));
        tally.rows_total += sizes.size();
        for (const std::string& size : sizes) tally.trials[v + "/" + size].second += 1;
        return;
    }
    const size_t passed_here = judge_variant_rows(ctx, s, t, v, verified, kernel_rule, tally);
    // A size the verdict left out counts as failed.
    size_t judged_here = 0;
    for (const RowVerdict& row : verified.rows) judged_here += row.variant == v;
    if (judged_here < sizes.size()) tally.rows_total += sizes.size() - judged_here;
    out << "  " << passed_here << " of " << sizes.size() << " sizes passed\n";
    if (passed_here == 0) tally.stopped.emplace(v, "every size failed in trial " + std::to_string(trial + 1));
    if (passed_here < sizes.size()) {
        const std::string hint = hint_for(ctx, s, v);
        if (!hint.empty()) out << "  " << hint << "\n";
    }
}

// The test's score from its rows (all or nothing, or each row's share; 0 for a cheat), and what
// changed between trials.
void score_correctness(const TestSpec& t, CorrectnessTally& tally, TestResult& res) {
    std::ostringstream& out = tally.out;
    const bool all = tally.rows_total > 0 && tally.rows_passed == tally.rows_total;
    if (t.all_or_nothing) res.score = all ? t.points : 0;
    else res.score = tally.rows_total ? t.points * static_cast<double>(tally.rows_passed) / static_cast<double>(tally.rows_total) : 0;
    if (!tally.cheated.empty()) {
        res.score = 0;
        out << "this test scores 0: the result of " << tally.cheated << " (above) did not follow its own inputs, or was made by "
            << "other means than this test allows, so no size of it counts\n";
    }
    std::vector<std::string> flaky;
    for (const auto& [key, count] : tally.trials)
        if (count.first > 0 && count.second > 0) flaky.push_back(key);
    if (!flaky.empty())
        out << "passed in one trial and failed in another: " << join(flaky, " ")
            << " (a result that changes from run to run points to a race)\n";
    res.output = out.str();
}

}  // namespace

std::vector<TimedRun> timed_rounds(const ProgramRun& pr, const std::set<std::string>& mine, int reps, int rounds) {
    std::vector<TimedRun> by_round(static_cast<size_t>(std::max(rounds, 1)));
    size_t timed = 0;  // timed repetitions so far, in the order they ran
    for (const CaseEvidence& c : pr.cases)
        for (const RepetitionEvidence& rep : c.reps) {
            if (rep.warmup) continue;
            TimedRun& t = by_round[std::min(timed++ / static_cast<size_t>(std::max(reps, 1)), by_round.size() - 1)];
            ++t.repetitions;
            t.staged_bytes += rep.staged_bytes;
            for (const KernelSpan& k : rep.kernels)
                if (is_one_of(k, mine)) {
                    t.kernel_ns += k.ns;
                    ++t.launches;
                }
        }
    return by_round;
}

CombinedTrial combined_trial(const GradingSetup& setup, int trial, const std::vector<std::string>& sizes) {
    CombinedTrial plan;
    for (const TestSpec& u : setup.rubric.tests) {
        if (u.kind != TestKind::Correctness || u.trials <= trial || !u.requires_tests.empty()) continue;
        const unsigned long long seed = derive_seed(setup.cfg.seed, u.id, trial);
        if (sizes_for(u, seed) != sizes) continue;
        if (std::any_of(u.variants.begin(), u.variants.end(), [&](const std::string& v) { return plan.seeds.count(v) > 0; })) continue;
        for (const std::string& v : u.variants) plan.seeds[v] = seed;
        plan.timeout_s += u.timeout_s > 0 ? u.timeout_s : setup.rubric.run_timeout_s;
        ++plan.tests;
    }
    return plan;
}

TestResult run_correctness(GradingContext& ctx, const GradedProgram& s, const TestSpec& t) {
    TestResult res{t.id, t.name, 0, t.points, t.visibility, ""};
    CorrectnessTally tally;
    for (int trial = 0; trial < t.trials; ++trial) {
        const unsigned long long seed = derive_seed(ctx.setup.cfg.seed, t.id, trial);
        const std::vector<std::string> sizes = sizes_for(t, seed);
        for (const std::string& v : t.variants) run_correctness_variant(ctx, s, t, trial, seed, sizes, v, tally);
    }
    score_correctness(t, tally, res);
    return res;
}

namespace {
// compute-sanitizer's exit status when it found errors, and the descriptor its report goes to.
constexpr int kSanitizerErrorExit = 99, kSanitizerLogFd = 4;
// racecheck analyses hazards on the host with one thread per CPU unless told otherwise. Those
// threads count against the sandbox's process limit, so on a machine with as many cores as the
// limit the tool's own start fails ("Resource temporarily unavailable"). A fixed count makes
// what a run needs the same on every machine, where the sanitizer takes the option; where it does
// not (or for a pool of another tool's), the limit makes room for one thread per CPU.
constexpr int kRacecheckWorkers = 4;
long cpus() { return static_cast<long>(std::max(1u, std::thread::hardware_concurrency())); }
}  // namespace

RunRequest sanitizer_request(const GradingSetup& setup, const TestSpec& t) {
    RunRequest req;
    req.prefix = {setup.info.cuda_home + "/bin/compute-sanitizer", "--tool", t.tool, "--error-exitcode", std::to_string(kSanitizerErrorExit),
                  "--print-limit", "20", "--log-file", "/proc/self/fd/" + std::to_string(kSanitizerLogFd)};
    const bool workers_set = std::any_of(t.tool_options.begin(), t.tool_options.end(),
                                         [](const std::string& o) { return o.rfind("--racecheck-num-workers", 0) == 0; });
    if (t.tool == "racecheck" && setup.racecheck_workers_option && !workers_set)
        req.prefix.insert(req.prefix.end(), {"--racecheck-num-workers", std::to_string(kRacecheckWorkers)});
    req.prefix.insert(req.prefix.end(), t.tool_options.begin(), t.tool_options.end());
    req.tool_threads = cpus();
    req.trace = false;
    req.timeout_s = t.timeout_s > 0 ? t.timeout_s : 4 * setup.rubric.run_timeout_s;
    req.log_fd_target = kSanitizerLogFd;
    return req;
}

RunRequest sanitizer_request(const GradingContext& ctx, const GradedProgram& s, const TestSpec& t, const std::string& variants,
                             const std::string& sizes, unsigned long long seed) {
    RunRequest req = sanitizer_request(ctx.setup, t);
    req.program = s.program;
    // --reps 0: each case launched once, checked, and not timed. The tool instruments every
    // launch, and a timed case would launch its kernel twice more (a warm-up and a repetition) on
    // the same inputs: the same accesses, watched again at the tool's cost (lab 12's racecheck
    // run is most of a submission's GPU time, bench/results/*.grading.md).
    req.args = run_args(variants, sizes, seed, 0, false);
    req.workdir = s.run_dir;
    req.outputs_dir = ctx.worker.priv + "/outputs";
    return req;
}

RunRequest correctness_request(const GradingContext& ctx, const GradedProgram& s, const TestSpec& t, const std::string& variants,
                               const std::string& sizes, unsigned long long seed) {
    RunRequest req;
    req.program = s.program;
    req.args = run_args(variants, sizes, seed, 1);
    req.workdir = s.run_dir;
    req.outputs_dir = ctx.worker.priv + "/outputs";
    req.timeout_s = t.timeout_s > 0 ? t.timeout_s : ctx.setup.rubric.run_timeout_s;
    return req;
}

RunRequest timed_request(const GradingContext& ctx, const GradedProgram& s, const TestSpec& t, const std::vector<std::string>& args) {
    RunRequest req;
    req.timeout_s = t.timeout_s > 0 ? t.timeout_s : ctx.setup.rubric.run_timeout_s;
    req.outputs_dir = ctx.worker.priv + "/outputs";
    req.program = s.program;
    req.args = args;
    req.workdir = s.run_dir;
    return req;
}

TestResult run_sanitizer(GradingContext& ctx, const GradedProgram& s, const TestSpec& t) {
    TestResult res{t.id, t.name, 0, t.points, t.visibility, ""};
    std::ostringstream out;
    const unsigned long long seed = derive_seed(ctx.setup.cfg.seed, t.id, 0);
    const std::vector<std::string> sizes = sizes_for(t, seed);
    const std::string size_list = join(sizes, ","), variant_list = join(t.variants, ",");
    // The sanitizer's report goes to a pipe the grader reads, never to a file in the student's
    // folder; its exit status (kSanitizerErrorExit when it found errors) is the verdict, the
    // report the explanation: the two must agree.
    const RunRequest req = sanitizer_request(ctx, s, t, variant_list, size_list, seed);
    std::string report;
    VerifiedRun checked = run_verified(ctx, req, variant_list, size_list, seed, &report);
    const ProgramRun& pr = checked.pr;
    report = replace_all(report, s.run_dir + "/", "");
    const std::vector<RowVerdict>& rows = checked.rows;
    const std::string& problem = checked.problem;
    const bool verified = checked.judged;
    size_t passed = 0;
    for (const RowVerdict& r : rows) passed += r.status == "PASS";
    const bool outputs_ok = verified && !rows.empty() && passed == rows.size();
    // "ERROR SUMMARY: 0 errors", or racecheck's "RACECHECK SUMMARY: N hazards displayed (0 errors,
    // N warnings)": warnings are not errors, and do not change the exit status either.
    static const std::regex clean_summary(R"((ERROR SUMMARY: 0 errors|RACECHECK SUMMARY: [0-9]+ hazards? displayed \(0 errors))");
    const bool summary_clean = std::regex_search(report, clean_summary);
    const bool status_clean = pr.run.started && !pr.run.timed_out && pr.run.signal == 0 && pr.run.exit_code != kSanitizerErrorExit;
    out << "compute-sanitizer --tool " << t.tool << (t.tool_options.empty() ? "" : " " + join(t.tool_options, " "))
        << " on variants " << variant_list << ", sizes " << size_list << ", seed " << seed << ":\n";
    if (!pr.retry_note.empty()) out << "  " << pr.retry_note << "\n";
    const std::string fate = program_fate(pr.run);
    if (!fate.empty() && pr.run.exit_code != kSanitizerErrorExit) out << "  " << fate << "\n";
    if (!verified) out << "  " << problem << "\n";
    else if (!outputs_ok) out << "  " << passed << " of " << rows.size() << " outputs were right under the sanitizer: this test needs them all\n";
    if (report.empty()) out << "  the sanitizer wrote no report (did the program end early?)\n";
    else if (!summary_clean || !status_clean) out << clip(report, 6000) << "\n";
    else out << "  no errors found\n";
    if (summary_clean != status_clean && !report.empty() && pr.run.started && !pr.run.timed_out)
        out << "  the sanitizer's report and its exit status disagree: not counted as clean\n";
    res.score = summary_clean && status_clean && outputs_ok ? t.points : 0;
    res.output = out.str();
    return res;
}

namespace {

// The program's own kernels in its timed repetitions.
TimedRun timed_run(const ProgramRun& pr, const std::set<std::string>& mine) { return timed_rounds(pr, mine, 1, 1)[0]; }

double number_or_zero(const nlohmann::json& row, const char* key) {
    return row.contains(key) && row[key].is_number() ? row[key].get<double>() : 0;
}

// The reference's timed run of one round, as a trusted program beside the student's; the figures
// its --json names (the copy bandwidth, variant v's bytes and flops) go into `evidence`.
TimedRun reference_round(GradingContext& ctx, const TestSpec& t, const std::vector<std::string>& args, int round,
                         const TimedProcess& process, PerformanceEvidence& evidence) {
    const std::string& v = t.variants[0];
    const std::string reference_json = ctx.worker.priv + "/reference.json";
    RunRequest req;
    req.timeout_s = t.timeout_s > 0 ? t.timeout_s : ctx.setup.rubric.run_timeout_s;
    req.outputs_dir = ctx.worker.priv + "/outputs";
    req.program = ctx.setup.info.sol;
    req.args = args;
    req.args.insert(req.args.end(), {"--json", reference_json});
    req.workdir = ctx.worker.priv + "/reference";
    req.sandboxed = false;
    unlink(reference_json.c_str());  // never an earlier test's figures
    // The reference must run: when it cannot, that is the grader's failure (GraderError).
    ProgramRun pr;
    process([&](TimingGate* gate) {
        req.gate = gate;
        pr = run_reference(ctx, req, "the reference solution's timed run (round " + std::to_string(round + 1) + ")");
    });
    const TimedRun timed = timed_run(pr, ctx.setup.sol_kernels);
    try {
        nlohmann::json j = nlohmann::json::parse(read_file(reference_json));
        evidence.copy_gbs = j["device"].value("copy_gbs", 0.0);
        for (const auto& row : j["results"])
            if (row["variant"] == v) {
                evidence.bytes = number_or_zero(row, "bytes");
                evidence.flops = number_or_zero(row, "flops");
                evidence.roofline_bytes = number_or_zero(row, "roofline_bytes");
                evidence.roofline_flops = number_or_zero(row, "roofline_flops");
            }
    } catch (const std::exception&) {
    }
    return timed;
}

// Whether a student's timed run may be timed: it ended well, every repetition's output was right,
// and it obeyed the copy and kernel rules of the correctness runs. Else `problem` says why not.
bool timed_run_counts(const GradingContext& ctx, const GradedProgram& s, const TestSpec& t, const VerifiedRun& verified,
                      std::string& problem) {
    const ProgramRun& pr = verified.pr;
    const std::string fate = program_fate(pr.run);
    problem = verified.problem;
    bool ok = pr.channel_complete && verified.judged;
    if (ok && !fate.empty()) {
        ok = false;
        problem = fate;
    } else if (ok) {
        for (const RowVerdict& row : verified.rows)
            if (ok && row.status != "PASS") {
                ok = false;
                problem = "the timed run's result was wrong: " + short_note(ctx, row.note);
            }
        if (ok && !pr.run.ok()) {
            ok = false;
            problem = "your program reported a failed check in the timed run (" + pr.run.describe() + ")";
        }
    }
    // The timed run obeys the same copy rule as the correctness runs: a CPU that computes
    // the result, or a copy engine that moves it, would be timed as nothing; and so is a
    // library's kernel, whose time is not the file's.
    for (const CaseEvidence& c : pr.cases) {
        if (ok)
            if (const HostTransfer* bad = forbidden_transfer(c.transfers, t.host_transfers)) {
                ok = false;
                problem = "your code copied data (" + bad->api + ", " + bad->direction + ") while it was timed: here the work "
                          "must be done by your kernels";
            }
        if (ok && ctx.setup.foreign_kernel_rule)
            if (const KernelSpan* k = foreign_kernel(c, s.kernels)) {
                ok = false;
                problem = "a kernel your file did not compile ran while it was timed (" + k->name + "): here the work must be "
                          "done by your kernels";
            }
    }
    return ok;
}

// The student's side of a performance test: one timed process in the sandbox of `rounds` x
// `reps` repetitions (the GPU alone around it, between clock readings, run again when throttled),
// split into the rounds in order (timed_rounds). What every timed repetition produced is judged
// like any output, by the verifier after the process (a repetition that did no work leaves its
// output poisoned, and a replayed result is not this one's). Each round's sample goes into
// `samples`. Empty, with `problem`, when it cannot be timed.
std::vector<TimedRun> student_side(GradingContext& ctx, const GradedProgram& s, const TestSpec& t, unsigned long long seed,
                                   ClockReader& clocks, const AloneTurn& alone, std::vector<TimedSample>& samples,
                                   std::ostringstream& out, std::string& problem) {
    RunRequest req = timed_request(ctx, s, t, run_args(t.variants[0], t.sizes[0], seed, t.reps * t.rounds));
    req.timeout_s *= t.rounds;  // the work of `rounds` runs of one round each
    std::vector<TimedRun> rounds;
    std::vector<TimedSample> attempts;
    const bool timed = sample_between_clock_readings(clocks, 1, false, alone, [&](double& ms, const TimedProcess& process) {
        VerifiedRun verified = run_verified(ctx, req, t.variants[0], t.sizes[0], seed, nullptr, process);
        rounds = timed_rounds(verified.pr, s.kernels, t.reps, t.rounds);
        ms = timed_run(verified.pr, s.kernels).per_rep_ms();
        if (!verified.pr.retry_note.empty()) out << "timed run: " << verified.pr.retry_note << "\n";
        return timed_run_counts(ctx, s, t, verified, problem);
    }, attempts);
    const std::vector<TimedSample> by_round = round_samples(attempts, rounds);
    samples.insert(samples.end(), by_round.begin(), by_round.end());
    if (!timed) rounds.clear();
    return rounds;
}

// Runs a timed process with the GPU alone for its repetitions (run_timed_alone): started while the
// lane's turn is shared -- holding the GPU's ticket, which the performance test's turn holds from
// its start, so that no other timed process is alive on the GPU -- it has the GPU alone
// from its gate, when it is ready to time, until it has ended; a process that did not wait at its
// gate -- it failed before, or began timing without asking -- is made again with the GPU alone
// from its start. Either way the turn stays alone after it until a run that is not timed shares
// it again (share_again). The waits for the GPU (for its ticket, then to have it alone) and the
// time alone go to the test's breakdown.
void run_with_gpu_alone(GradingContext& ctx, const GatedRun& process, const std::function<void()>& on_alone,
                        const std::function<void()>& on_done) {
    GpuTurn* const turn = ctx.submission.gpu_turn;
    double asked = steady_now(), alone_since = 0, waited = 0, held = 0;
    double ticket_waited = 0;  // for the GPU's ticket, before the process starts (another timed process)
    const auto now_alone = [&](double since) {
        alone_since = steady_now();
        waited = alone_since - since;
        on_alone();
    };
    const auto done = [&] {
        on_done();
        held = seconds_since(alone_since);
    };
    run_timed_alone(
        turn,
        [&](const std::function<void()>& take) {
            ticket_waited = seconds_since(asked);
            TimingGate gate;
            gate.open = [&] {
                const double ready = steady_now();
                take();
                now_alone(ready);
            };
            process(&gate);
            if (gate.opened) done();  // the process has ended: the GPU is alone still
            asked = steady_now();     // made again, whole: its wait starts now
            return gate.opened;
        },
        [&] {
            now_alone(asked);
            process(nullptr);
            done();
        });
    if (turn && ctx.submission.timing && alone_since > 0) ctx.submission.timing->add_alone(ticket_waited + waited, held);
}

// The reference's side of a performance test: the samples of its GPU's pool (reference_pool.h),
// one measured fresh for this submission and more where the pool holds too few recent ones, each
// timed like a student's run (alone, between clock readings, run again when throttled). Every
// sample used goes into `samples`, marked where it was measured for another submission, after
// the runs made again for throttling that this test set aside.
PooledReference reference_side(GradingContext& ctx, const TestSpec& t, const std::vector<std::string>& args, ClockReader& clocks,
                               const AloneTurn& alone, std::vector<TimedSample>& samples) {
    ReferencePool own;  // without a pool for the GPU (none set up): this test's samples alone
    ReferencePool& pool = ctx.worker.reference_pool ? *ctx.worker.reference_pool : own;
    int measured = 0;
    const auto measure = [&] {
        ReferenceSample r;
        std::vector<TimedSample> attempts;
        ++measured;
        sample_between_clock_readings(clocks, measured, true, alone, [&](double& ms, const TimedProcess& process) {
            r.run = reference_round(ctx, t, args, measured - 1, process, r.figures);
            ms = r.run.per_rep_ms();
            return true;
        }, attempts);
        r.sample = attempts.back();
        attempts.pop_back();
        samples.insert(samples.end(), attempts.begin(), attempts.end());
        return r;
    };
    PooledReference pooled = pooled_reference(pool, t.id + " " + join(args, " "), static_cast<size_t>(t.rounds), measure, steady_now);
    const double now = steady_now();
    for (size_t i = 0; i < pooled.used.size(); ++i) {
        TimedSample used = pooled.used[i].sample;
        used.round = static_cast<int>(i) + 1;
        used.shared = pooled.shared[i];
        used.age_s = now - pooled.used[i].taken_s;
        samples.push_back(used);
    }
    return pooled;
}

}  // namespace

TestResult run_performance(GradingContext& ctx, const GradedProgram& s, const TestSpec& t) {
    TestResult res{t.id, t.name, 0, t.points, t.visibility, ""};
    std::ostringstream out;
    if (!ctx.setup.trace_ok) {
        res.output = "not timed: the grader ran without its kernel trace (CUPTI); ask your instructor";
        return res;
    }
    const std::string& v = t.variants[0];
    const std::string& size = t.sizes[0];
    const unsigned long long seed = derive_seed(ctx.setup.cfg.seed, t.id, 0);
    const std::vector<std::string> args = run_args(v, size, seed, t.reps);
    // Every timed run between two readings of the GPU's clocks, run again when it was throttled.
    const std::unique_ptr<ClockReader> clocks = open_clock_reader(ctx.worker.gpu_uuid, ctx.worker.cuda_visible_devices, ctx.worker.priv);
    std::vector<TimedSample>& samples = res.timing.samples;
    const AloneTurn alone = [&ctx](const GatedRun& process, const std::function<void()>& on_alone, const std::function<void()>& on_done) {
        run_with_gpu_alone(ctx, process, on_alone, on_done);
    };
    // The reference's rounds first (a fresh sample and the pool's), then the student's, each
    // student round beside one of them.
    const PooledReference reference = reference_side(ctx, t, args, *clocks, alone, samples);
    std::string problem;
    const std::vector<TimedRun> student = student_side(ctx, s, t, seed, *clocks, alone, samples, out, problem);
    if (student.empty()) {
        out << "the timed run (" << t.rounds << " rounds of " << t.reps << " repetitions): " << problem << "\n"
            << "Every timed repetition is checked: this test scores 0.\n";
        res.output = out.str();
        return res;
    }
    PerformanceEvidence evidence = reference.used.back().figures;  // the newest run's figures
    for (size_t round = 0; round < student.size(); ++round) evidence.rounds.push_back({reference.used[round].run, student[round]});
    PerformanceJudgement j = judge_performance(evidence, t.curve, ctx.setup.rubric.plausible_bandwidth, ctx.setup.rubric.plausible_flop_rate);
    out << v << " at " << size << " on " << ctx.worker.device << ":\n" << j.text;
    res.score = t.points * j.fraction;
    if (!j.tampering) res.slowdown = j.slowdown;
    if (!j.tampering) res.roofline = {v, size, ctx.worker.device.substr(0, ctx.worker.device.find(" (driver ")), evidence.roofline_bytes,
                                      evidence.roofline_flops, evidence.copy_gbs, j.student_ms, j.reference_ms};
    // The interval beside the score (the score itself is the median's, as above).
    if (!j.tampering && !j.ratios.empty()) {
        res.timing = performance_timing(samples, j.ratios, j.slowdown, res.score, t.points, t.curve,
                                        derive_seed(ctx.setup.cfg.seed, t.id + "/bootstrap", 0), j.student_round_ms, j.reference_round_ms);
        out << timing_feedback(res.timing);
    }
    std::string curve;
    for (auto& p : t.curve.points) curve += (curve.empty() ? "" : ", ") + format_points(p.first) + "x -> " + format_points(100 * p.second) + "%";
    if (!j.tampering) out << "curve: " << curve << "\n";
    res.output = out.str();
    return res;
}

}  // namespace grading
