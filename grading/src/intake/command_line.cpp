#include "intake/command_line.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <iostream>
#include <thread>

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
       grading/grade similarity [options] RUN_DIR   (grading/grade similarity --help)

Grades submissions of lab NN (the guide: grading/README.md; the rules: grading/DESIGN.md). A
SUBMISSION is the lab's file (alice.cu: the student is alice), a folder per student holding it
(alice/vector_add.cu), or a folder of those. Links, FIFOs and devices are refused unread.

Options:
  --lab NN               the lab (required)
  --out DIR              where the results go (default build/grading/labNN-<date>); one run
                         at a time in a folder
  --roster FILE          the class list (CSV, or a Canvas, Moodle or Gradescope export): the
                         gradebook gains id, name, email and section; DIR/lms-canvas.csv and
                         DIR/lms-moodle.csv import the grades
  --allow-unmatched-roster  grade even where the roster matches no submission
  --lms-assignment T     the assignment's name in the LMS (default "Lab NN")
  --lms-points P         the assignment's points in the LMS (default: the rubric's)
  --gpus LIST|all        grade on several GPUs of this machine, one worker each (0,2,3 as CUDA
                         counts them); GRADING_SHARED_GPUS=1 lets one GPU be named twice (tests)
  --per-gpu N|auto       submissions graded at once on a GPU (default auto; a timed test has
                         the GPU alone)
  --shard K/N            grade only shard K (0..N-1) of the class, one node of several (needs
                         --seed); grading/grade merge assembles the shards
  --seed N               base seed of the hidden inputs (default: fresh)
  --regrade FILE         an earlier run's audit.jsonl: its seed, and what changed
  --resume DIR           finish the run cut short in DIR, with its options and seed
  --compile-only         build and audit only, run nothing (no GPU needed)
  --gradescope FILE      also write the one submission's results.json to FILE
  --rubric FILE          the rubric (default grading/rubrics/NN.rubric)
  --isolation MODE       auto (default) or bwrap: bubblewrap; uid or unsafe: only by name
                         (weaker: see the guide); stated in every report
  --jobs N               parallel compilations (default: the number of cores)
  --no-build-reuse       compile every file, even one identical to another
  --separate-correctness run each trial of each correctness test in a process of its own
  --separate-verifiers   a verifier for each verification, none kept open
  --no-trace             no CUPTI kernel trace (no kernel checks; performance 0)
  --root DIR             the trusted cudalabs tree (default: this script's)
  -h, --help             this text

Writes DIR/feedback/STUDENT.md, DIR/results/STUDENT.json (Gradescope's format),
DIR/gradebook.csv, DIR/audit.jsonl and DIR/summary.txt. Exit: 0 graded; 1 an error, or a
submission the grader could not grade (named, with the command that grades it again); 2 a bad
command line, rubric or roster; 77 no GPU.

leaderboard OUT RUN_DIR... ranks the graded runs' fully correct submissions by their time against
the reference, under pseudonyms (the roster's, else derived with the course secret: --secret-file
FILE or GRADING_LEADERBOARD_SECRET), into OUT/leaderboard.html and OUT/leaderboard.csv.
merge OUT SHARD_DIR... assembles every shard of one class into OUT as one run writes it.
similarity RUN_DIR reports which submissions share code (evidence to judge; no score changes).
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
        else if (a == "--separate-verifiers") c.keep_verifier = false;
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
    set_builds_at_once(cfg.jobs > 0 ? cfg.jobs : static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
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
