#include "intake/command_line.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <iostream>

#include "args.h"
#include "intake/submissions.h"
#include "util/files.h"
#include "util/text.h"

using cudalabs::UsageError;

namespace grading {

namespace {

constexpr int kMaxIndex = 1023;  // what a lab's --device takes

}  // namespace

const char* const kUsage = R"(Usage: grading/grade --lab NN [options] SUBMISSION...
       grading/grade merge OUT SHARD_DIR...
       grading/grade leaderboard [--secret-file FILE] [--title TEXT] OUT RUN_DIR...

Grades submissions of lab NN. A SUBMISSION is the lab's file (e.g. vector_add.cu; the student is
the file's name without .cu, or its folder's name when the file has the lab's own name), a folder
per student holding that file, or a folder of such files and folders.

Options:
  --lab NN             the lab (required)
  --rubric FILE        the rubric (default grading/rubrics/NN.rubric)
  --out DIR            where to write the results (default build/grading/labNN-<date>)
  --seed N             base seed of the hidden inputs (default: fresh; a regrade reuses it)
  --regrade FILE       an earlier run's audit.jsonl: reuse its seed and say what changed
  --resume DIR         finish the run that was cut short in DIR (killed, a lost machine, a
                       full disk), with its options and its seed, which DIR records before
                       anything is graded: submissions whose results were recorded are kept as
                       they are, the others (one cut midway too) are graded from the start, and
                       the files are those the uninterrupted run would have written. Rerunning
                       the same command with --out DIR does the same; a run with another lab,
                       rubric, seed, class or options is refused while DIR holds such results.
  --isolation MODE     how submissions are kept from the grader and from each other
                       (stated in every report):
                         auto        (default) the same as bwrap
                         bwrap       bubblewrap (Debian package bubblewrap): only the system,
                                     the CUDA toolkit and the run folder visible; as root,
                                     started as the run's own uid (64000-64255); where it cannot
                                     run, grading stops at the start and says what to do
                         uid         only by name, as root: the run's own uid alone (reads what
                                     any user may read, sees other processes, has the network)
                         unsafe      only by name: the grader's own user with resource limits only
  --jobs N             parallel compilations (default: the number of cores), at a lower CPU
                       priority (nice 10) beside the grading, which starts on each
                       submission as soon as it is built
  --compile-only       build and audit only, run nothing (no GPU needed); tests are "not run"
  --per-gpu N|auto     submissions graded at once on each GPU (default auto): their untimed
                       tests (correctness, sanitizers) share the GPU, a timed test has it
                       alone, and a run that fails while shared is made again alone, so scores
                       are those of grading alone. auto: from the GPU's memory (10 GiB a lane),
                       SMs (16 a lane), the CPUs (2 a lane) and at most 8; 1 where nvidia-smi
                       does not report the GPU's compute mode as Default. 1: one submission at
                       a time per GPU, as before.
  --no-build-reuse     compile every file, even one identical to a file built before in this
                       run (by default its compile and link are reused; the audit always runs)
  --separate-correctness
                       run each trial of each correctness test in a process of its own, with a
                       verifier after each. By default trial k of every correctness test runs in
                       one process, each test's variants with that test's own seed, judged by
                       one verifier: fewer GPU opens a submission. Only passes are taken from
                       it: a variant that does not pass there is run on its own, and that run
                       decides, so scores and feedback are those of separate runs either way
  --separate-verifiers start a verifier for each verification. By default each lane keeps one
                       open for its submissions' verifications (the trusted reference, started
                       once, judging one run's outputs after another with the GPU open): fewer
                       GPU opens a submission. Only its passes are taken: any other answer is
                       settled by a verifier of its own, so scores and feedback are those of
                       separate verifiers either way
  --no-trace           grade without the CUPTI kernel trace (no kernel checks; performance 0)
  --shard K/N          grade only shard K (0..N-1) of N slices of the class, for one node of
                       several: the i-th student in sorted order goes to shard i % N. Needs
                       --seed (the same for every shard). Writes DIR/shard.json besides.
  --gpus LIST|all      grade on several GPUs of this machine at once, one worker per GPU, each
                       grading whole submissions: every run of a submission's tests, and the
                       reference runs its timing is compared with, on that GPU (pinned with
                       CUDA_VISIBLE_DEVICES). LIST: GPU indices as CUDA counts them, comma-
                       separated (0,2,3), within CUDA_VISIBLE_DEVICES when that is set; all:
                       every GPU CUDA shows. The builds stay in parallel on the CPUs.
                       Scores, feedback, gradebook and summary are a one-GPU run's, in the same
                       order; the summary and audit log say which GPU graded whom. Default: the
                       one GPU CUDA picks. Combines with --shard (one node's GPUs per shard).
                       GRADING_SHARED_GPUS=1 lets a GPU be given twice (0,0: two workers on
                       it), to test this on one GPU: timings are then not fair.
  --roster FILE        the class list (CSV: id, name, email, section, optional pseudonym; or a
                       Canvas, Moodle or Gradescope export as it comes). Submissions are matched
                       by folder or file name, or by the submission_metadata.json of a Gradescope
                       submission folder; the gradebook gains roster_id, name, email and section;
                       DIR/lms-canvas.csv and DIR/lms-moodle.csv import the grades into Canvas or
                       Moodle; DIR/roster.txt lists submissions not on the roster and students
                       without a submission. A bad roster: exit 2, naming the file and line. A
                       regrade reuses the earlier run's roster unless given one. A roster that
                       matches no submission stops the run before any is built (exit 1).
  --allow-unmatched-roster  grade even so (the LMS files are then empty)
  --lms-assignment T   the assignment's name in the LMS (default "Lab NN")
  --lms-points P       the assignment's points in the LMS: scores are scaled to them (default:
                       the rubric's total)
  --gradescope FILE    also write the single submission's results.json to FILE
  --root DIR           the trusted cudalabs tree (default: this script's)
  -h, --help           this text

Writes DIR/feedback/STUDENT.md, DIR/results/STUDENT.json (Gradescope's format),
DIR/gradebook.csv, DIR/audit.jsonl and DIR/summary.txt. Exit: 0 graded, 1 error (a GPU of
--gpus on which the reference fails is named, before grading starts), 2 bad command line (a
--gpus index with no GPU too), 77 no GPU.

leaderboard OUT RUN_DIR... ranks the graded runs' submissions that have full correctness and
sanitizer marks by the grader's median ratio of their kernel time to the reference's,
per lab and GPU model, under pseudonyms (the roster's Pseudonym column, else derived from the id
with the course secret: --secret-file FILE or GRADING_LEADERBOARD_SECRET); writes
OUT/leaderboard.html (self-contained) and OUT/leaderboard.csv.

merge OUT SHARD_DIR... assembles the folders of every shard K/N of one class into OUT (new or
empty) as one run with that seed writes it: feedback, results, gradebook (in the order of a
single run), audit log and summary. It refuses shards of different seeds, rubrics, trees, labs
or N, a missing or unfinished shard (naming which to rerun), a shard given twice and a student in
two shards. Shard folders are only read.
)";

GpuRequest parse_gpu_list(const std::string& text, bool shared_allowed) {
    GpuRequest r;
    r.given = true;
    r.text = text;
    const std::string what = "--gpus takes 'all' or GPU indices separated by commas (0,2,3)";
    if (trim(text).empty()) throw UsageError(what + ", not nothing");
    if (trim(text) == "all") {
        r.all = true;
        return r;
    }
    for (const std::string& part : split_list(text)) {
        if (part.empty()) throw UsageError("--gpus " + text + ": an empty entry (" + what + ")");
        if (part.find_first_not_of("0123456789") != std::string::npos)
            throw UsageError("--gpus " + text + ": '" + part + "' is not a GPU index (" + what + ")");
        if (part.size() > 4 || std::stoi(part) > kMaxIndex)
            throw UsageError("--gpus " + text + ": GPU index " + part + " is too large (at most " + std::to_string(kMaxIndex) + ")");
        const int index = std::stoi(part);
        if (std::find(r.indices.begin(), r.indices.end(), index) != r.indices.end()) {
            if (!shared_allowed)
                throw UsageError("--gpus " + text + ": GPU " + std::to_string(index) + " is given twice (each GPU takes one worker)");
            r.shared = true;
        }
        r.indices.push_back(index);
    }
    return r;
}

ShardSpec parse_shard(const std::string& text) {
    const size_t slash = text.find('/');
    auto number = [&](const std::string& s) {
        if (s.empty() || s.size() > 6 || s.find_first_not_of("0123456789") != std::string::npos)
            throw UsageError("--shard takes K/N (shard K of N, counted from 0: 0/4 ... 3/4), not '" + text + "'");
        return std::stoi(s);
    };
    if (slash == std::string::npos) number("");
    ShardSpec s;
    s.k = number(text.substr(0, slash));
    s.n = number(text.substr(slash + 1));
    if (s.n < 1) throw UsageError("--shard " + text + ": N must be at least 1");
    if (s.k >= s.n) throw UsageError("--shard " + text + ": K counts from 0, so it must be below N (0.." + std::to_string(s.n - 1) + ")");
    return s;
}

std::string rubric_of_lab(const std::string& root, const std::string& lab) {
    const std::string dir = root + "/grading/rubrics", path = dir + "/" + lab + ".rubric";
    if (exists(path)) return path;
    std::vector<std::string> labs;
    for (const std::string& f : list_dir(dir))
        if (f.size() > 7 && f.compare(f.size() - 7, 7, ".rubric") == 0) labs.push_back(f.substr(0, f.size() - 7));
    if (labs.empty()) throw cudalabs::UsageError("there is no lab " + lab + ": " + dir + " holds no rubric (--root names the cudalabs tree)");
    throw cudalabs::UsageError("there is no lab " + lab + " (--lab): the labs are " + join(labs, ", "));
}

Config parse_command_line(int argc, char** argv) {
    Config c;
    std::vector<std::string> not_with_resume;  // all but --resume OUT, --jobs N and --root DIR
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if (a != "--resume" && a != "--jobs" && a != "--root") not_with_resume.push_back(a);
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) throw UsageError(a + " needs a value");
            return argv[++i];
        };
        auto number = [&](const std::string& text) { return static_cast<unsigned long long>(cudalabs::parse_positive(text, a)); };
        if (a == "-h" || a == "--help") {
            c.help = true;
            return c;
        } else if (a == "--lab") c.lab = value();
        else if (a == "--rubric") c.rubric_path = value();
        else if (a == "--out") c.out_dir = value();
        else if (a == "--seed") c.seed = number(value());
        else if (a == "--resume") c.resume = value();
        else if (a == "--regrade") c.regrade = value();
        else if (a == "--isolation") c.isolation = value();
        else if (a == "--jobs") c.jobs = static_cast<int>(std::min(256ull, number(value())));
        else if (a == "--compile-only") c.compile_only = true;
        else if (a == "--per-gpu") {
            const std::string v = value();
            c.per_gpu = v == "auto" ? 0 : static_cast<size_t>(std::min(64ull, number(v)));
        }
        else if (a == "--no-build-reuse") c.build_reuse = false;
        else if (a == "--separate-correctness") c.combine_correctness = false;
        else if (a == "--combine-correctness") c.combine_correctness = true;  // the default; kept for scripts that give it
        else if (a == "--separate-verifiers") c.keep_verifier = false;
        else if (a == "--keep-verifier") c.keep_verifier = true;  // the default; kept for scripts that give it
        else if (a == "--no-trace") c.no_trace = true;
        else if (a == "--gradescope") c.gradescope = value();
        else if (a == "--roster") c.roster = value();
        else if (a == "--allow-unmatched-roster") c.allow_unmatched_roster = true;
        else if (a == "--lms-assignment") c.lms_assignment = value();
        else if (a == "--lms-points") {
            const std::string v = value();
            char* end = nullptr;
            c.lms_points = std::strtod(v.c_str(), &end);
            if (v.empty() || *end != '\0' || !(c.lms_points > 0) || !std::isfinite(c.lms_points))
                throw UsageError("--lms-points needs a positive number of points, like 10 or 12.5 (not '" + v + "')");
        }
        else if (a == "--root") c.root = value();
        else if (a == "--shard") c.shard = parse_shard(value());
        else if (a == "--gpus") {
            const char* shared = std::getenv(kSharedGpusVariable);
            c.gpus = parse_gpu_list(value(), shared && std::string(shared) == "1");
        }
        else if (!a.empty() && a[0] == '-') throw UsageError("unknown option '" + a + "' (see --help)");
        else c.inputs.push_back(a);
    }
    if (!c.resume.empty()) {
        if (!not_with_resume.empty())
            throw UsageError("--resume OUT takes the run's options from its record: give only --resume OUT (and --jobs N), not '" +
                             not_with_resume[0] + "'");
        return c;
    }
    if (c.lab.size() == 1 && std::isdigit(static_cast<unsigned char>(c.lab[0]))) c.lab = "0" + c.lab;
    if (c.lab.size() != 2 || !std::isdigit(static_cast<unsigned char>(c.lab[0])) || !std::isdigit(static_cast<unsigned char>(c.lab[1])))
        throw UsageError("--lab NN is required (two digits, like 01)");
    if (c.isolation != "auto" && !isolation_level_named(c.isolation)) throw UsageError("--isolation must be auto, bwrap, uid or unsafe");
    if (c.inputs.empty()) throw UsageError("no submissions given");
    if (c.shard.active() && !c.seed && c.regrade.empty())
        throw UsageError("--shard " + c.shard.text() + " needs --seed N, the same for every shard of the class (any number, e.g. --seed " +
                         std::to_string(1 + static_cast<unsigned>(std::time(nullptr)) % 2147483646u) +
                         "), so that every shard grades with the same hidden inputs");
    return c;
}


std::string default_out_dir(const Config& cfg) {
    char stamp[32];
    std::time_t now = std::time(nullptr);
    std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", std::localtime(&now));
    return absolute(cfg.root) + "/build/grading/lab" + cfg.lab + "-" + stamp;
}

namespace {

// The output folder: made, written to, with free space, and apart from every submissions folder
// (results inside a class folder would be graded as students; a class inside the results could be
// written over).
void check_out_dir(const Config& cfg) {
    const std::string out = cfg.out_dir.empty() ? folder_of(default_out_dir(cfg)) : cfg.out_dir;
    for (const std::string& in : cfg.inputs) {
        if (is_dir(in) && is_within(out, in))
            throw UsageError("--out " + out + " lies inside the submissions folder " + in +
                             ": its results would be graded as students; give --out a folder outside it");
        if (is_within(in, out))
            throw UsageError("the submissions " + in + " lie inside --out " + out + ", which the grader writes: give --out another folder");
    }
    try {
        make_dirs(out);
        check_writable(out);
    } catch (const std::runtime_error& e) {
        throw UsageError(std::string(e.what()) + ": give --out a folder you can write to, on a disk with free space");
    }
}

// --gradescope FILE: written at the end, so its folder must take a file now.
void check_gradescope_file(const std::string& file) {
    if (file.empty()) return;
    struct stat st;
    if (lstat(file.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
        throw UsageError("--gradescope " + file + " is not a regular file: give the path of the results.json to write");
    const std::string folder = folder_of(absolute(file));
    if (!is_dir(folder)) throw UsageError("--gradescope " + file + ": there is no folder " + folder);
    if (access(folder.c_str(), W_OK) != 0 || (lstat(file.c_str(), &st) == 0 && access(file.c_str(), W_OK) != 0))
        throw UsageError("--gradescope " + file + " cannot be written: give a path the grader's user may write");
}

}  // namespace

void check_command(const Config& cfg) {
    if (!cfg.resume.empty()) {
        if (!is_dir(cfg.resume))
            throw UsageError("there is no folder " + cfg.resume + ": there is nothing to resume (give --resume the --out of a run that was cut short)");
        try {
            check_writable(cfg.resume);
        } catch (const std::runtime_error& e) {
            throw UsageError(std::string(e.what()) + ": free space (or make it writable), then resume");
        }
        return;
    }
    if (cfg.rubric_path.empty()) rubric_of_lab(absolute(cfg.root), cfg.lab);
    else read_given_file(cfg.rubric_path, 1 << 20, "rubric");
    check_submission_inputs(cfg.inputs);
    if (!cfg.roster.empty()) read_given_file(cfg.roster, kMaxRosterBytes, "roster file");
    if (!cfg.regrade.empty()) read_given_file(cfg.regrade, kMaxAuditLogBytes, "audit log of --regrade");
    check_out_dir(cfg);
    check_gradescope_file(cfg.gradescope);
}

}  // namespace grading
