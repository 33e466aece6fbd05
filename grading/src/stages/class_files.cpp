#include "stages/class_files.h"

#include <iostream>
#include <set>
#include <sstream>

#include "class/leaderboard.h"
#include "class/roofline_picture.h"
#include "class/roster.h"
#include "exit_codes.h"
#include "util/files.h"
#include "util/text.h"

namespace grading {

namespace {

// The shard's summary line, and its shard.json finished.
void finish_shard(const GradingSetup& setup, ClassSlice& slice, const std::string& device, const std::vector<std::string>& gpu_text,
                  std::ostream& tail) {
    tail << "shard " << setup.cfg.shard.text() << ": " << slice.subs.size() << " of the class's " << slice.class_ids.size()
         << " submissions (grading/grade merge OUT SHARD_DIR... assembles the class)\n";
    slice.shard.device = device;
    slice.shard.gpus = gpu_text;
    slice.shard.finished = true;
    write_file(setup.out + "/shard.json", shard_record_json(slice.shard));
}

// The device of the summary and of shard.json: the one GPU's, or each GPU's where they differ.
std::string device_summary(const Workers& workers) {
    std::set<std::string> distinct;
    for (const Worker& w : workers.all()) distinct.insert(w.setup.device);
    if (distinct.size() == 1) return *distinct.begin();
    std::vector<std::string> each;
    for (const Worker& w : workers.all()) each.push_back(workers.worker_name(w) + ": " + w.setup.device);
    return join(each, "; ");
}

// With --gpus: one line per GPU for the summary (and shard.json): which, as whom, how many.
std::vector<std::string> gpu_lines(const Workers& workers) {
    std::vector<std::string> lines;
    if (workers.all().empty() || workers.all()[0].gpu < 0) return lines;
    for (const Worker& w : workers.all()) {
        std::string line = workers.gpu_label(w) + ": " + w.setup.device;
        if (w.setup.iso.changes_user()) line += ", sandbox uid " + std::to_string(w.setup.iso.uid);
        line += ": " + std::to_string(w.graded) + " submission" + (w.graded == 1 ? "" : "s") + " graded";
        lines.push_back(line);
    }
    return lines;
}

// `s` as one word of a shell command line.
std::string quoted(const std::string& s) {
    if (s.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+=,:") == std::string::npos) return s;
    std::string q = "'";
    for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

// The command that grades `failed` again with this run's seed and rubric, into a folder of its own.
std::string regrade_command(const GradingSetup& setup, const std::vector<const Submission*>& failed) {
    std::string cmd = "grading/grade --lab " + setup.cfg.lab + " --seed " + std::to_string(setup.cfg.seed) + " --rubric " +
                      quoted(setup.cfg.rubric_path) + " --out " + quoted(setup.out + "-regrade");
    if (setup.cfg.isolation != "auto") cmd += " --isolation " + setup.cfg.isolation;
    if (setup.cfg.gpus.given) cmd += " --gpus " + quoted(setup.cfg.gpus.text);
    if (!setup.cfg.roster.empty()) cmd += " --roster " + quoted(setup.cfg.roster);
    for (const Submission* s : failed) cmd += " " + quoted(s->source.path);
    return cmd;
}

}  // namespace

// The summary (and with --gradescope, --roster and --shard their files); the exit code: 1 where a
// submission could not be graded.
int write_class_results(const GradingSetup& setup, const Workers& workers, ClassSlice& slice, const ClassResults& book,
                        const std::vector<std::string>& regrade_note) {
    const Config& cfg = setup.cfg;
    const std::vector<Submission>& subs = slice.subs;
    std::vector<std::string> regrade_notes;
    size_t same = 0;
    for (const std::string& note : regrade_note) {
        if (note.empty()) ++same;
        else regrade_notes.push_back(note);
    }
    const std::vector<StudentResult> all = book.results();
    if (!cfg.gradescope.empty())
        write_file(cfg.gradescope, with_gradescope_roofline(with_gradescope_leaderboard(gradescope_json(subs[0].result), subs[0].result, setup.rubric),
                                                            book.roofline_picture(0)));
    const std::string roster_text = write_roster_outputs(setup.out);  // with --roster: the LMS files and what did not match
    std::string summary = summary_table(all, setup.rubric);
    std::ostringstream tail;
    const std::string device = device_summary(workers);
    tail << summary_tail(cfg.lab, subs.size(), cfg.seed, device, setup.isolation_text, setup.tools, cfg.regrade, same, regrade_notes);
    if (!cfg.compile_only) {
        tail << (cfg.combine_correctness ? "correctness: each trial of the tests that share sizes run in one process; a variant that did not "
                                           "pass there was run on its own, and that run decided (--separate-correctness: each on its own)\n"
                                         : "correctness: each trial of each test run in a process of its own (--separate-correctness)\n");
        tail << (cfg.keep_verifier ? "verifier: one kept open on each lane; only its passes were taken, anything else was settled by a "
                                     "verifier of its own (--separate-verifiers: one for each verification)\n"
                                   : "verifier: one for each verification (--separate-verifiers)\n");
    }
    const std::vector<std::string> gpu_text = gpu_lines(workers);
    if (!gpu_text.empty())
        tail << gpu_summary(gpu_text, "--gpus " + cfg.gpus.text + (cfg.gpus.shared ? std::string(", shared through ") + kSharedGpusVariable + "=1: timings not fair" : ""));
    if (cfg.shard.active()) finish_shard(setup, slice, device, gpu_text, tail);
    // Submissions the grader could not grade have no score: they are named, with the command
    // that grades them again, and the run exits 1.
    std::vector<const Submission*> failed;
    for (const Submission& s : subs)
        if (!s.result.grader_error.empty()) failed.push_back(&s);
    if (!failed.empty())
        tail << failed.size() << " submission" << (failed.size() == 1 ? "" : "s") << " not graded (grader error: no score); grade "
             << (failed.size() == 1 ? "it" : "them") << " again with:\n  " << regrade_command(setup, failed) << "\n";
    write_file(setup.out + "/summary.txt", summary + "\n" + tail.str());
    std::cout << summary << "\n" << tail.str() << roster_text << "results: " << setup.out << "\n";
    if (slice.class_ids.size() > 1 && !cfg.shard.active())  // (a shard's folder holds part of the class)
        std::cout << "shared code: grading/grade similarity " << quoted(setup.out) << " (a report to judge; no score changes)\n";
    return failed.empty() ? 0 : cudalabs::kExitFail;
}

}  // namespace grading
