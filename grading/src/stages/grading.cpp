#include "stages/grading.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <exception>
#include <fstream>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>

#include "class/audit_log.h"
#include "class/leaderboard.h"
#include "class/regrade.h"
#include "gpu/gpus.h"
#include "judge/questions.h"
#include "judge/test_kinds.h"
#include "util/files.h"
#include "util/text.h"

namespace grading {

using nlohmann::json;

// Every submission graded by the next free lane, in the order their builds end (the builds go on
// beside the grading). Results are written as each submission finishes, so that a run cut short
// keeps them. With several GPUs they finish in any order: the files are put in class order as
// they are written (the gradebook) or at the end (the audit log), as one GPU would have written
// them.
std::vector<std::string> ClassGrading::grade(BuildQueue& builds) {
    std::vector<Submission>& subs = slice_.subs;
    if (!setup_.cfg.roster.empty()) book_.use_roster(&inputs_.roster, &inputs_.roster_match);
    regrade_note_.assign(subs.size(), "");
    std::mutex finishing;  // the progress lines, the counts, shard.json's rows
    size_t graded = begin_files();
    if (graded == 0) write_file(setup_.out + "/breakdown.jsonl", "");  // resumed: the earlier lines stay
    if (!setup_.cfg.compile_only) sandbox_start_s_ = sandbox_start_seconds();
    builds_ = &builds;
    struct Unset {
        BuildQueue*& builds;
        ~Unset() { builds = nullptr; }
    } unset{builds_};
    distribute(subs.size(), workers_.lanes().size(), [&](size_t lane, size_t k) {
        const size_t i = builds.take(k);  // the next submission built
        // The queue hears when it is graded, however that ends (builds put off wait for the
        // class), and a lane that fails stops the lanes still waiting for a build.
        struct Handed {
            BuildQueue& builds;
            ~Handed() {
                if (std::uncaught_exceptions() > 0) builds.cancel();
                builds.graded();
            }
        } handed{builds};
        Lane& l = workers_.lanes()[lane];
        Worker& w = workers_.all()[l.worker];
        if (subs[i].restored) return;
        const bool ran = grade_contained(w, l, subs[i], i);
        std::lock_guard<std::mutex> lock(finishing);
        finish_one(w, i, ran, ++graded);
    });
    for (Lane& l : workers_.lanes()) l.kept_verifier.reset();  // the class is graded: the kept verifiers end
    book_.end();
    finish_breakdown();
    return regrade_note_;
}

// A graded submission's progress line, results and breakdown line (one at a time: `graded` is
// how many have finished, this one included).
void ClassGrading::finish_one(Worker& w, size_t index, bool ran, size_t graded) {
    Submission& s = slice_.subs[index];
    const size_t count = slice_.subs.size();
    const double written = steady_now();
    if (ran) ++w.graded;
    const double remaining = run_elapsed() / static_cast<double>(graded) * static_cast<double>(count - graded);
    const std::string on = w.gpu >= 0 ? workers_.worker_name(w) + ": " : "";
    std::fprintf(stderr, "[%zu/%zu] %s%s: %s (elapsed %s, about %s left)\n", graded, count, on.c_str(), s.source.id.c_str(),
                 total_text(s.result, setup_.rubric.total_points()).c_str(), elapsed_text(run_elapsed()).c_str(), elapsed_text(remaining).c_str());
    finish_contained(w, index, ran);
    s.timing.results_s = seconds_since(written);
    s.timing.total_s += s.timing.results_s;
    std::ofstream(setup_.out + "/breakdown.jsonl", std::ios::app) << breakdown_json(s.timing) << "\n";
}

// This run's block of the audit log begun (resumed: with the submissions recorded before it
// stopped, whose files are rendered again from their results). Returns how many were kept.
size_t ClassGrading::begin_files() {
    const std::map<size_t, SubmissionRecord> kept = folder_.begin(setup_, slice_, json_text(run_line()), book_);
    for (const auto& [index, record] : kept) {
        if (record.ran && record.worker < workers_.all().size()) ++workers_.all()[record.worker].graded;
        note_finished(index);
    }
    return kept.size();
}

// One submission graded, whatever happens inside it: a failure there (an exception, a tool that
// crashed) becomes its own grader error, never the class's. Only a failed write of the grader's
// own (StorageError: a full disk) stops the run, which --resume then finishes.
bool ClassGrading::grade_contained(Worker& w, Lane& lane, Submission& s, size_t index) {
    try {
        return grade_submission(w, lane, s, index);
    } catch (const StorageError&) {
        throw;
    } catch (const std::exception& e) {
        make_grader_error(s.result, std::string("while grading: ") + e.what());
        return false;
    }
}

// A graded submission's results written (its record, audit line, feedback, results.json and
// gradebook row), every text of its result made valid UTF-8 first. Where making them fails, the
// submission is a grader error instead, written the same way; only a failed write stops the run.
void ClassGrading::finish_contained(const Worker& w, size_t index, bool ran) {
    Submission& s = slice_.subs[index];
    make_text_valid(s.result);
    for (int attempt = 0;; ++attempt) {
        try {
            json line = audit_line(w, s, ran);
            note_finished(index);
            if (inputs_.regrade) line["same_as_before"] = regrade_note_[index].empty();
            folder_.record(setup_, s, index, json_text(line), ran, w.slot, book_);
            return;
        } catch (const StorageError&) {
            throw;
        } catch (const std::exception& e) {
            if (attempt > 0) throw;  // not even a grader error could be written: the grader's own fault
            forget_submission_record(setup_.out, s.source.id);
            make_grader_error(s.result, std::string("while writing its results: ") + valid_utf8(e.what()));
        }
    }
}

// A finished submission's regrade note (what changed) and its row of shard.json's summary.
void ClassGrading::note_finished(size_t index) {
    const Submission& s = slice_.subs[index];
    if (inputs_.regrade) {
        regrade_note_[index] = regrade_difference(s.result, inputs_.baseline);
        slice_.shard.regrade_notes[s.source.id] = regrade_note_[index];
    }
    slice_.shard.summary_rows[s.source.id] = summary_row(s.result, setup_.rubric);
}

// The audit log's first line of this run: what it graded with, on which GPUs, and when it began
// grading (made once and recorded, so a resumed run keeps its start).
json ClassGrading::run_line() const {
    const Config& cfg = setup_.cfg;
    json line = {{"event", "run"}, {"lab", cfg.lab}, {"seed", cfg.seed}, {"rubric", cfg.rubric_path}, {"rubric_sha256", setup_.rubric_sha},
                 {"isolation", setup_.isolation_text}, {"tools", setup_.tools}, {"compile_only", cfg.compile_only}, {"submissions", slice_.subs.size()},
                 {"graded_at", utc_timestamp(std::time(nullptr))}};
    if (inputs_.regrade) line["regrade_of"] = cfg.regrade;
    if (!cfg.roster.empty()) line["roster"] = lossless_json(inputs_.roster.path);  // (--regrade reads it: its every byte)
    if (!setup_.tree.empty()) line["tree"] = setup_.tree;
    if (cfg.shard.active()) line["shard"] = {{"k", cfg.shard.k}, {"n", cfg.shard.n}};
    if (workers_.all()[0].gpu >= 0) {
        line["gpus"] = json::array();
        for (const Worker& w : workers_.all())
            line["gpus"].push_back({{"index", w.gpu}, {"worker", w.slot}, {"name", w.name}, {"device", w.setup.device},
                                    {"cuda_visible_devices", w.setup.cuda_visible_devices}, {"uid", w.setup.iso.changes_user() ? static_cast<long>(w.setup.iso.uid) : -1L}});
    }
    return line;
}

// One submission on lane `lane` of worker `w`: its tests run where it was built (not with
// --compile-only), else each test says why not. Returns whether its tests ran.
bool ClassGrading::grade_submission(Worker& w, Lane& lane, Submission& s, size_t index) {
    auto t0 = std::chrono::steady_clock::now();
    const bool runs = s.ready && !setup_.cfg.compile_only;
    s.timing.student = s.source.id;
    if (runs) {
        s.timing.lane = workers_.lane_name(w, lane);
        try {
            SubmissionState state;  // its own, nothing of the submission before
            state.timing = &s.timing;
            // --per-gpu 1: one graded submission at a time on this GPU, across every grading run
            // here; otherwise each test takes its turn (grade_tests).
            GpuTurn whole;
            if (workers_.lanes_per_gpu() == 1) {
                const double waited = steady_now();
                whole = GpuTurn(*w.gate, true);
                s.timing.wait_gpu_s += seconds_since(waited);
                state.gpu_turn = &whole;
            }
            if (setup_.cfg.keep_verifier) {
                if (!lane.kept_verifier) lane.kept_verifier = std::make_unique<KeptVerifier>();
                state.kept_verifier = lane.kept_verifier.get();
            }
            const double folder = steady_now();
            prepare_run_folder(s.graded.run_dir, lane.setup.iso);
            s.timing.sandbox_s += seconds_since(folder);
            grade_tests(w, lane, state, s, index);
        } catch (const std::exception& e) {
            // The grader's own failure (the environment's, or a bug): this student is not
            // graded -- no score anywhere -- and the class goes on.
            s.result.grader_error = e.what();
            s.result.tests.clear();
        }
        const double folder = steady_now();
        release_run_folder(s.graded.run_dir);
        remove_tree(lane.setup.priv + "/outputs");
        s.timing.sandbox_s += seconds_since(folder);
    } else if (s.result.grader_error.empty()) {
        for (const TestSpec& t : setup_.rubric.tests) {
            TestResult r{t.id, t.name, 0, t.points, t.visibility, s.ready ? "not run (--compile-only)" : "not run: " + s.result.rejected};
            r.not_run = s.ready;
            // The questions need no build: a refused file's answers count all the same; with
            // --compile-only their form is checked, never their key.
            if (t.kind == TestKind::Questions) {
                const Answers answers = answers_of_file(s.source.answers, s.source.answers_problem);
                if (setup_.cfg.compile_only) r.output += "\n" + questions_form_text(t, answers);
                else r = grade_questions(t, answers, {});
            }
            s.result.tests.push_back(r);
        }
    }
    s.result.execution_time_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    s.timing.total_s = s.timing.compile_s + s.timing.audit_s + s.timing.link_s + s.result.execution_time_s;
    return runs;
}


void ClassGrading::grade_tests(Worker& w, Lane& lane, SubmissionState& state, Submission& s, size_t index) {
    const size_t count = slice_.subs.size();
    GradingContext ctx{setup_, lane.setup, state};
    const std::string on = w.gpu >= 0 || workers_.lanes_per_gpu() > 1 ? workers_.lane_name(w, lane) + ": " : "";
    std::map<std::string, TestResult> done;
    s.timing.tests.reserve(setup_.rubric.tests.size());  // (runs add to the current one by pointer)
    for (const TestSpec& t : setup_.rubric.tests) {
        std::fprintf(stderr, "[%zu/%zu] %s%s: %s (elapsed %s)\n", index + 1, count, on.c_str(), s.source.id.c_str(), t.id.c_str(),
                     elapsed_text(run_elapsed()).c_str());
        // A test that needs others at full marks is not even run without them (a hang or a wrong
        // result would only repeat itself, and cost the whole class time).
        std::string missing;
        for (const std::string& need : t.requires_tests) {
            auto it = done.find(need);
            if (missing.empty() && (it == done.end() || !it->second.passed())) missing = it == done.end() ? need : it->second.name;
        }
        TestResult r{t.id, t.name, 0, t.points, t.visibility, ""};
        if (!missing.empty()) r.output = "not run: it needs full marks in '" + missing + "' first";
        else if (t.kind == TestKind::Questions) r = grade_questions(t, answers_of_file(s.source.answers, s.source.answers_problem), done);
        else r = run_test(w, ctx, s, t);
        done[t.id] = r;
        s.result.tests.push_back(r);
    }
}

// One test's runs, in its turn on the GPU: with several lanes a GPU, every test shares it and a
// performance test, holding the GPU's ticket from its start, takes it alone around each timed
// process (run_performance); with one, the submission's turn is alone already.
TestResult ClassGrading::run_test(Worker& w, GradingContext& ctx, Submission& s, const TestSpec& t) {
    TestTiming& timing = s.timing.tests.emplace_back();
    timing.id = t.id;
    s.timing.current = &timing;
    const double started = steady_now();
    // Nothing is timed while a build runs: compilations would take the CPUs from the timed
    // processes. (The first performance tests come after the others, when most builds are over.)
    if (t.kind == TestKind::Performance && builds_) builds_->wait();
    GpuTurn* const whole = ctx.submission.gpu_turn;
    GpuTurn turn = test_turn(*w.gate, whole, t.kind == TestKind::Performance);
    if (turn.held()) {
        timing.wait_gpu_s = seconds_since(started);
        s.timing.wait_gpu_s += timing.wait_gpu_s;
        ctx.submission.gpu_turn = &turn;
    }
    timing.alone = !ctx.submission.gpu_turn->sharing();
    TestResult r;
    try {
        if (t.kind == TestKind::Correctness) r = run_correctness(ctx, s.graded, t);
        else if (t.kind == TestKind::Sanitizer) r = run_sanitizer(ctx, s.graded, t);
        else r = run_performance(ctx, s.graded, t);
    } catch (const std::exception& e) {
        ctx.submission.gpu_turn = whole;
        s.timing.current = nullptr;
        throw GraderError("in test '" + t.id + "': " + e.what());  // which of its runs the grader could not make
    }
    ctx.submission.gpu_turn = whole;
    s.timing.current = nullptr;
    timing.wall_s = seconds_since(started);
    return r;
}

// What starting a program in the sandbox costs: the median of three starts of /usr/bin/true as the
// first lane's runs are started (its user, its reference's run folder); 0 where it cannot run.
double ClassGrading::sandbox_start_seconds() {
    const WorkerSetup& lane = workers_.lanes()[0].setup;
    if (lane.reference.run_dir.empty()) return 0;
    std::vector<double> took;
    prepare_run_folder(lane.reference.run_dir, lane.iso);
    for (int k = 0; k < 3; ++k) {
        RunSpec spec;
        lane.iso.apply(spec, {"/usr/bin/true"}, lane.reference.run_dir);
        spec.env = scrubbed_env(lane.reference.run_dir, setup_.info.cuda_home + "/bin");
        spec.limits.wall_s = 30;
        const double t0 = steady_now();
        if (!run_process(spec).ok()) break;
        took.push_back(seconds_since(t0));
    }
    release_run_folder(lane.reference.run_dir);
    if (took.size() < 3) return 0;
    std::sort(took.begin(), took.end());
    return took[1];
}

// Where the class's time went: the table on stderr and in OUT/breakdown.txt (each submission's
// line is in OUT/breakdown.jsonl).
void ClassGrading::finish_breakdown() const {
    std::vector<SubmissionTiming> all;
    for (const Submission& s : slice_.subs) all.push_back(s.timing);
    const std::string table = breakdown_table(all, run_elapsed(), sandbox_start_s_);
    write_file(setup_.out + "/breakdown.txt", table);
    std::fprintf(stderr, "%s", table.c_str());
}

// A submission's line in the audit log: its scores, when they were written, and where its tests
// ran, which GPU graded it.
json ClassGrading::audit_line(const Worker& w, const Submission& s, bool ran) const {
    json line = json::parse(audit_json(s.result, setup_.cfg.lab, setup_.cfg.seed, w.setup.device, isolation_level_name(w.setup.iso.level), setup_.tools, setup_.rubric_sha));
    line["event"] = "submission";
    line["graded_at"] = utc_timestamp(std::time(nullptr));
    // Which GPU graded whom (a submission that ran nothing was graded on none).
    if (w.gpu >= 0 && ran) line["gpu"] = {{"index", w.gpu}, {"name", w.name}, {"worker", w.slot}};
    // The leaderboard's figures (where a performance test was timed): the grader's own.
    if (const json figures = leaderboard_audit(s.result, setup_.rubric); !figures.is_null()) line["leaderboard"] = figures;
    return line;
}

}  // namespace grading
