// grading/grade: grades a class's submissions of one lab. See grading/README.md.
//
// For each submission: stage the student's single file beside copies of the trusted headers,
// audit the source, compile it in the sandbox with the trusted flags, audit what the compiler
// read and the symbols of the object, link it with the trusted driver; then run the rubric's
// tests. Outputs are judged outside the student's process: the program writes them
// (--emit-outputs), the trusted solution checks them (--verify-outputs) from the same seed.
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <iostream>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <sstream>
#include <thread>

#include "args.h"
#include "audit.h"
#include "exit_codes.h"
#include "random.h"
#include "results.h"
#include "rubric.h"
#include "sandbox.h"
#include "sha256.h"
#include "todo_hint.h"

using nlohmann::json;
using namespace grading;

namespace {

constexpr const char* kUsage = R"(Usage: grading/grade --lab NN [options] SUBMISSION...

Grades submissions of lab NN. A SUBMISSION is the lab's file (e.g. vector_add.cu; the student is
the file's name without .cu, or its folder's name when the file has the lab's own name), a folder
per student holding that file, or a folder of such files and folders.

Options:
  --lab NN             the lab (required)
  --rubric FILE        the rubric (default grading/rubrics/NN.rubric)
  --out DIR            where to write the results (default build/grading/labNN-<date>)
  --seed N             base seed of the hidden inputs (default: fresh; a regrade reuses it)
  --regrade FILE       an earlier run's audit.jsonl: reuse its seed and say what changed
  --isolation MODE     auto (default: bubblewrap where it works), bwrap, or rlimits
  --jobs N             parallel compilations (default: the number of cores)
  --compile-only       build and audit only, run nothing (no GPU needed)
  --no-trace           grade without the CUPTI kernel trace (no kernel checks; performance 0)
  --gradescope FILE    also write the single submission's results.json to FILE
  --root DIR           the trusted cudalabs tree (default: this script's)
  -h, --help           this text

Writes DIR/feedback/STUDENT.md, DIR/results/STUDENT.json (Gradescope's format),
DIR/gradebook.csv, DIR/audit.jsonl and DIR/summary.txt. Exit: 0 graded, 1 error,
2 bad command line, 77 no GPU.
)";

using cudalabs::UsageError;

struct Config {
    std::string root = ".";
    std::string lab, rubric_path, out_dir, isolation = "auto", regrade, gradescope;
    unsigned long long seed = 0;
    int jobs = 0;
    bool compile_only = false, no_trace = false;
    std::vector<std::string> inputs;
};

// What `make grading-info LAB=NN` reports about the trusted build.
struct LabInfo {
    std::string dir, topic_file, nvcc, nvcc_flags, arch_flags, ldlibs, cuda_home, sol, sol_object,
        student_source_object, trace_lib;
    std::vector<std::string> objects;  // trusted objects linked with the student's
};

struct Submission {
    std::string id, path;
    StudentResult result;
    std::string stage, run_dir, program, source_copy;
    std::set<std::string> kernels;
    bool ready = false;  // compiled, audited and linked
};

// ---- small helpers ---------------------------------------------------------------------------

std::string read_file(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

void write_file(const std::string& path, const std::string& text) {
    std::ofstream f(path, std::ios::binary);
    f << text;
    if (!f) throw std::runtime_error("cannot write " + path);
}

bool exists(const std::string& path) {
    struct stat st;
    return stat(path.c_str(), &st) == 0;
}
bool is_dir(const std::string& path) {
    struct stat st;
    return stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

void make_dirs(const std::string& path) {
    std::string cur;
    std::istringstream in(path);
    std::string part;
    if (!path.empty() && path[0] == '/') cur = "/";
    while (std::getline(in, part, '/')) {
        if (part.empty()) continue;
        cur += part + "/";
        mkdir(cur.c_str(), 0755);
    }
    if (!is_dir(path)) throw std::runtime_error("cannot create the folder " + path);
}

void remove_tree(const std::string& path) {
    if (path.size() < 8) return;  // never anything as short as "/" or "build"
    RunSpec s;
    s.argv = {"/bin/rm", "-rf", "--", path};
    s.cwd = "/tmp";
    s.env = {"PATH=/usr/bin:/bin"};
    s.stdout_path = s.stderr_path = "/dev/null";
    s.limits.wall_s = 120;
    run_process(s);
}

std::string absolute(const std::string& path) {
    char buf[4096];
    if (realpath(path.c_str(), buf)) return buf;
    if (!path.empty() && path[0] == '/') return path;
    char cwd[4096];
    return std::string(getcwd(cwd, sizeof cwd) ? cwd : ".") + "/" + path;
}

std::vector<std::string> split_ws(const std::string& s) {
    std::istringstream in(s);
    std::vector<std::string> out;
    std::string w;
    while (in >> w) out.push_back(w);
    return out;
}

std::vector<std::string> list_dir(const std::string& dir) {
    std::vector<std::string> out;
    if (DIR* d = opendir(dir.c_str())) {
        while (dirent* e = readdir(d))
            if (std::strcmp(e->d_name, ".") && std::strcmp(e->d_name, "..")) out.push_back(e->d_name);
        closedir(d);
    }
    std::sort(out.begin(), out.end());
    return out;
}

std::string basename_of(const std::string& p) {
    size_t s = p.find_last_of('/');
    return s == std::string::npos ? p : p.substr(s + 1);
}

std::string safe_id(const std::string& s) {
    std::string out;
    for (char c : s) out += (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-') ? c : '_';
    if (out.empty() || out[0] == '.') out = "_" + out;
    return out.substr(0, 100);
}

std::string elapsed_text(double s) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%dm%02ds", static_cast<int>(s) / 60, static_cast<int>(s) % 60);
    return buf;
}

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
    if (from.empty()) return s;
    for (size_t p = s.find(from); p != std::string::npos; p = s.find(from, p + to.size())) s.replace(p, from.size(), to);
    return s;
}

std::string clip(const std::string& s, size_t max) {
    if (s.size() <= max) return s;
    return s.substr(0, max) + "\n[... " + std::to_string(s.size() - max) + " more bytes]";
}

// The seed of one trial of one test: fixed by the run's base seed, the same for every student.
unsigned long long derive_seed(unsigned long long base, const std::string& test, int trial) {
    uint64_t h = base;
    for (char c : test) h = cudalabs::mix64(h ^ static_cast<unsigned char>(c));
    return 1 + cudalabs::mix64(h + static_cast<uint64_t>(trial)) % 2147483646ull;
}

std::string random_hex(size_t bytes) {
    std::ifstream f("/dev/urandom", std::ios::binary);
    std::string raw(bytes, '\0');
    f.read(&raw[0], static_cast<std::streamsize>(bytes));
    static const char* hex = "0123456789abcdef";
    std::string out;
    for (unsigned char c : raw) { out += hex[c >> 4]; out += hex[c & 15]; }
    return out;
}

std::string join(const std::vector<std::string>& v, const std::string& sep) {
    std::string out;
    for (size_t i = 0; i < v.size(); ++i) out += (i ? sep : "") + v[i];
    return out;
}

// Runs a trusted helper command (make, nm, nvcc --version) and returns its stdout.
RunResult run_trusted(const std::vector<std::string>& argv, const std::string& cwd, double timeout,
                      const std::string& scratch) {
    RunSpec s;
    s.argv = argv;
    s.cwd = cwd;
    for (char** e = environ; *e; ++e) s.env.push_back(*e);
    s.limits.wall_s = timeout;
    s.limits.file_mb = 0;
    s.limits.open_files = 0;
    s.limits.keep_output = 16 << 20;
    static std::atomic<int> counter{0};
    int n = counter++;
    s.stdout_path = scratch + "/trusted" + std::to_string(n) + ".out";
    s.stderr_path = scratch + "/trusted" + std::to_string(n) + ".err";
    RunResult r = run_process(s);
    unlink(s.stdout_path.c_str());
    unlink(s.stderr_path.c_str());
    return r;
}

// ---- the grader --------------------------------------------------------------------------

class Grader {
public:
    explicit Grader(Config c) : cfg_(std::move(c)) {}
    int run();

private:
    Config cfg_;
    Rubric rubric_;
    LabInfo info_;
    Isolation iso_;
    std::string out_, private_, device_ = "unknown", tools_, isolation_text_, rubric_sha_;
    std::set<std::string> trusted_symbols_, sol_kernels_;
    AuditRules audit_rules_;
    Limits run_limits_;
    bool trace_ok_ = false, have_gpu_ = true;
    std::vector<std::string> variants_;
    std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();

    double elapsed() const { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count(); }
    void load_lab();
    std::vector<Submission> collect();
    void prepare(Submission& s);
    void self_test();
    void grade_tests(Submission& s, size_t index, size_t count);
    TestResult run_correctness(Submission& s, const TestSpec& t);
    TestResult run_sanitizer(Submission& s, const TestSpec& t);
    TestResult run_performance(Submission& s, const TestSpec& t);  // its required tests passed

    struct RowVerdict {
        std::string variant, size, status, note;
    };
    struct ProgramRun {
        RunResult run;
        std::vector<std::string> kernels;  // names of the kernels that ran, one per launch
        std::vector<unsigned long long> durations_ns;
        std::vector<std::string> trace_stages;  // how far the trace library got
    };
    ProgramRun run_program(const std::string& program, const std::vector<std::string>& args,
                           const std::string& workdir, bool sandboxed, bool trace, double timeout,
                           const std::vector<std::string>& prefix = {});
    bool verify(const std::string& emitted, const std::string& variants, const std::string& sizes,
                unsigned long long seed, std::vector<RowVerdict>& rows, std::string& problem);
    std::vector<std::string> sizes_for(const TestSpec& t, unsigned long long seed) const;
    std::string hint_for(const Submission& s, const std::string& variant) const;
};

void Grader::load_lab() {
    std::string scratch = private_;
    RunResult r = run_trusted({"make", "-s", "--no-print-directory", "-C", cfg_.root, "grading-info", "LAB=" + cfg_.lab},
                              cfg_.root, 1800, scratch);
    if (!r.ok())
        throw std::runtime_error("building the trusted tree failed (make grading-info LAB=" + cfg_.lab + "): " +
                                 r.describe() + "\n" + clip(r.out + r.err, 4000));
    std::map<std::string, std::string> kv;
    std::istringstream in(r.out);
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind("grading-info:", 0) != 0) continue;
        size_t eq = line.find('=');
        if (eq != std::string::npos) kv[line.substr(13, eq - 13)] = line.substr(eq + 1);
    }
    if (kv["LABDIR"].empty()) throw std::runtime_error("lab " + cfg_.lab + " does not exist in " + cfg_.root);
    auto abs_in_root = [&](const std::string& p) { return p.empty() || p[0] == '/' ? p : cfg_.root + "/" + p; };
    info_.dir = kv["LABDIR"];
    info_.topic_file = kv["STUDENT"];
    info_.nvcc = kv["NVCC"];
    info_.nvcc_flags = kv["NVCCFLAGS"];
    info_.arch_flags = kv["ARCH_FLAGS"];
    info_.ldlibs = kv["LDLIBS"];
    info_.cuda_home = absolute(kv["CUDA_HOME"]);
    info_.sol = abs_in_root(kv["SOL"]);
    info_.sol_object = abs_in_root(kv["SOL_OBJECT"]);
    info_.student_source_object = abs_in_root(kv["STUDENT_SOURCE_OBJECT"]);
    info_.trace_lib = kv["TRACE_LIB"].empty() ? "" : abs_in_root(kv["TRACE_LIB"]);
    for (const std::string& o : split_ws(kv["OBJS"])) info_.objects.push_back(abs_in_root(o));
    if (!info_.trace_lib.empty() && !exists(info_.trace_lib)) info_.trace_lib.clear();

    // Trusted symbols: what the driver and the harness define (strong, global).
    std::vector<std::string> nm = {"nm", "--defined-only"};
    for (const std::string& o : info_.objects) nm.push_back(o);
    RunResult n = run_trusted(nm, cfg_.root, 120, scratch);
    for (const Symbol& s : parse_nm(n.out))
        if (is_strong_global(s)) trusted_symbols_.insert(s.name);
    RunResult ns = run_trusted({"nm", info_.sol_object}, cfg_.root, 60, scratch);
    sol_kernels_ = kernels_defined(parse_nm(ns.out));

    // The headers a student's file may include by name: the lab's and the harness's.
    for (const std::string& dir : {cfg_.root + "/common", cfg_.root + "/" + info_.dir})
        for (const std::string& f : list_dir(dir))
            if ((f.size() > 2 && f.substr(f.size() - 2) == ".h") || (f.size() > 4 && f.substr(f.size() - 4) == ".cuh"))
                audit_rules_.allowed_local_headers.insert(f);
    audit_rules_.forbid_includes = rubric_.forbid_includes;
    audit_rules_.forbid_symbols = rubric_.forbid_symbols;
    audit_rules_.allow_symbols = rubric_.allow_symbols;

    RunResult list = run_trusted({info_.sol, "--list"}, cfg_.root, 60, scratch);
    variants_ = split_ws(list.out);
    for (const TestSpec& t : rubric_.tests)
        for (const std::string& v : t.variants)
            if (std::find(variants_.begin(), variants_.end(), v) == variants_.end())
                throw RubricError(cfg_.rubric_path + ": test '" + t.id + "' names variant '" + v +
                                  "', which lab " + cfg_.lab + " does not have (" + join(variants_, ", ") + ")");

    std::string nvcc_version = run_trusted({info_.nvcc, "--version"}, cfg_.root, 60, scratch).out;
    std::string last;
    std::istringstream vin(nvcc_version);
    while (std::getline(vin, line)) if (!line.empty()) last = line;
    tools_ = "nvcc: " + last;
    std::string git = run_trusted({"git", "-C", cfg_.root, "rev-parse", "--short", "HEAD"}, cfg_.root, 30, scratch).out;
    std::string dirty = run_trusted({"git", "-C", cfg_.root, "status", "--porcelain"}, cfg_.root, 30, scratch).out;
    if (!git.empty()) tools_ += "; tree: " + split_ws(git)[0] + (dirty.empty() ? "" : " (modified)");
}

std::vector<Submission> Grader::collect() {
    std::vector<Submission> subs;
    auto add_file = [&](const std::string& path, std::string id) {
        Submission s;
        s.id = safe_id(id);
        s.path = absolute(path);
        s.result.student = s.id;
        s.result.file = basename_of(path);
        subs.push_back(s);
    };
    auto add_folder = [&](const std::string& dir) {
        std::string id = basename_of(absolute(dir));
        if (exists(dir + "/" + info_.topic_file)) return add_file(dir + "/" + info_.topic_file, id);
        std::vector<std::string> cu;
        for (const std::string& f : list_dir(dir))
            if (f.size() > 3 && f.substr(f.size() - 3) == ".cu" && !is_dir(dir + "/" + f)) cu.push_back(f);
        if (cu.size() == 1) return add_file(dir + "/" + cu[0], id);
        Submission s;
        s.id = safe_id(id);
        s.path = absolute(dir);
        s.result.student = s.id;
        s.result.file = "(none)";
        s.result.rejected = cu.empty() ? "no " + info_.topic_file + " in the submission"
                                       : "several .cu files and none named " + info_.topic_file + ": submit only " + info_.topic_file;
        subs.push_back(s);
    };
    for (const std::string& in : cfg_.inputs) {
        if (!exists(in)) throw UsageError("no such file or folder: " + in);
        if (!is_dir(in)) {
            std::string name = basename_of(in);
            std::string stem = name.size() > 3 && name.substr(name.size() - 3) == ".cu" ? name.substr(0, name.size() - 3) : name;
            std::string parent = basename_of(absolute(in).substr(0, absolute(in).find_last_of('/')));
            add_file(in, name == info_.topic_file ? parent : stem);
        } else if (exists(in + "/" + info_.topic_file)) {
            add_folder(in);
        } else {
            for (const std::string& f : list_dir(in)) {
                std::string p = in + "/" + f;
                // Never the grader's own results (--out inside the submissions folder).
                if (is_dir(p) && (absolute(p) == out_ || exists(p + "/audit.jsonl"))) continue;
                if (is_dir(p)) add_folder(p);
                else if (f.size() > 3 && f.substr(f.size() - 3) == ".cu") add_file(p, f.substr(0, f.size() - 3));
            }
        }
    }
    std::set<std::string> ids;
    for (Submission& s : subs) {
        std::string id = s.id;
        for (int k = 2; ids.count(id); ++k) id = s.id + "-" + std::to_string(k);
        s.id = s.result.student = id;
        ids.insert(id);
    }
    return subs;
}

// Build and audit one submission (runs on a compile thread).
void Grader::prepare(Submission& s) {
    StudentResult& r = s.result;
    if (!r.rejected.empty()) return;
    std::string source = read_file(s.path);
    r.sha256 = sha256_hex(source);
    if (source.size() > (1u << 20)) { r.rejected = "the file is larger than 1 MiB"; return; }

    // Stage: the trusted headers and the student's file, nothing else (no driver, no solution).
    s.stage = out_ + "/work/" + s.id + "/build";
    s.run_dir = out_ + "/work/" + s.id + "/run";
    remove_tree(out_ + "/work/" + s.id);
    make_dirs(s.stage + "/common");
    make_dirs(s.stage + "/" + info_.dir);
    make_dirs(s.run_dir);
    for (const std::string& dir : {std::string("common"), info_.dir})
        for (const std::string& f : list_dir(cfg_.root + "/" + dir))
            if (audit_rules_.allowed_local_headers.count(f))
                write_file(s.stage + "/" + dir + "/" + f, read_file(cfg_.root + "/" + dir + "/" + f));
    s.source_copy = s.stage + "/" + info_.dir + "/" + info_.topic_file;
    write_file(s.source_copy, source);

    std::vector<Finding> findings = audit_source(source, audit_rules_);
    auto reject = [&](const std::vector<Finding>& f, const std::string& what) {
        std::string msg = what;
        for (size_t i = 0; i < f.size() && i < 5; ++i) msg += (i ? "; " : ": ") + f[i].detail;
        r.rejected = msg;
    };
    if (!findings.empty()) return reject(findings, "integrity check failed");

    // Compile in the sandbox with the trusted flags.
    std::vector<std::string> argv = {info_.nvcc};
    for (const std::string& f : split_ws(info_.nvcc_flags)) argv.push_back(f);
    argv.insert(argv.end(), {"-I" + info_.dir, "-MD", "-MF", "student.d", "-c", info_.dir + "/" + info_.topic_file, "-o", "student.o"});
    RunSpec spec;
    spec.argv = iso_.wrap(argv, s.stage);
    spec.cwd = s.stage;
    spec.env = scrubbed_env(s.stage, info_.cuda_home + "/bin");
    spec.limits.wall_s = rubric_.compile_timeout_s;
    spec.limits.file_mb = rubric_.file_limit_mb;
    spec.limits.keep_output = 32 << 10;
    spec.stdout_path = s.stage + "/../compile.out";
    spec.stderr_path = s.stage + "/../compile.err";
    RunResult c = run_process(spec);
    std::string messages = replace_all(c.out + c.err, s.stage + "/", "");
    r.compiler_output = clip(messages, 12000);
    if (!c.ok()) {
        r.rejected = c.timed_out ? "compilation took longer than " + format_points(rubric_.compile_timeout_s) + " s"
                                 : "compile error (" + c.describe() + ")";
        return;
    }
    r.compiled = true;
    std::vector<std::string> roots = {s.stage, "/usr/include", "/usr/lib/gcc", "/usr/local/include", info_.cuda_home};
    std::vector<std::string> deps = parse_depfile(read_file(s.stage + "/student.d"));
    for (std::string& d : deps) if (!d.empty() && d[0] != '/') d = s.stage + "/" + d;  // relative to the compile folder
    findings = audit_dependencies(deps, roots);
    if (!findings.empty()) return reject(findings, "integrity check failed");
    RunResult nm = run_trusted({"nm", s.stage + "/student.o"}, s.stage, 60, s.stage);
    std::vector<Symbol> symbols = parse_nm(nm.out);
    findings = audit_symbols(symbols, trusted_symbols_, audit_rules_);
    if (!findings.empty()) return reject(findings, "integrity check failed");
    s.kernels = kernels_defined(symbols);

    // Link with the trusted driver and harness (outside the sandbox: no student code runs).
    std::vector<std::string> link = {info_.nvcc};
    for (const std::string& f : split_ws(info_.arch_flags)) link.push_back(f);
    link.insert(link.end(), {"-o", s.run_dir + "/program"});
    link.insert(link.end(), info_.objects.begin(), info_.objects.end());
    link.push_back(info_.student_source_object);
    link.push_back(s.stage + "/student.o");
    for (const std::string& f : split_ws(info_.ldlibs)) link.push_back(f);
    RunResult l = run_trusted(link, s.stage, rubric_.compile_timeout_s, s.stage);
    if (!l.ok()) {
        r.rejected = "link error (" + l.describe() + ")";
        r.compiler_output = clip(replace_all(l.out + l.err, s.stage + "/", ""), 12000);
        return;
    }
    s.program = s.run_dir + "/program";
    s.ready = true;
}

Grader::ProgramRun Grader::run_program(const std::string& program, const std::vector<std::string>& args,
                                       const std::string& workdir, bool sandboxed, bool trace, double timeout,
                                       const std::vector<std::string>& prefix) {
    ProgramRun pr;
    make_dirs(workdir);
    std::vector<std::string> argv = prefix;
    argv.push_back(program);
    argv.insert(argv.end(), args.begin(), args.end());
    RunSpec spec;
    spec.cwd = workdir;
    spec.env = scrubbed_env(workdir, info_.cuda_home + "/bin");
    spec.limits = run_limits_;
    spec.limits.wall_s = timeout;
    static int counter = 0;
    const std::string tag = std::to_string(counter++);
    spec.stdout_path = private_ + "/run" + tag + ".out";
    spec.stderr_path = private_ + "/run" + tag + ".err";
    std::string trace_path, key;
    std::vector<std::string> extra, trace_env;
    if (trace && trace_ok_) {
        trace_path = private_ + "/trace" + tag + ".txt";
        write_file(trace_path, "");
        key = random_hex(16);
        trace_env = {"LD_PRELOAD=" + info_.trace_lib, "CUDA_INJECTION64_PATH=" + info_.trace_lib,
                     "CUDALABS_TRACE_FILE=" + trace_path, "CUDALABS_TRACE_KEY=" + key};
        extra.push_back(trace_path);
    }
    if (!sandboxed) spec.limits.mem_mb = 0;
    // Under bubblewrap the trace's variables are set inside the sandbox only: in bwrap's own
    // environment the preloaded library would consume them before the program starts.
    if (sandboxed && iso_.level == "bwrap") {
        spec.argv = iso_.wrap(argv, workdir, extra, trace_env);
    } else {
        spec.argv = sandboxed ? iso_.wrap(argv, workdir, extra) : argv;
        spec.env.insert(spec.env.end(), trace_env.begin(), trace_env.end());
    }
    pr.run = run_process(spec);
    reap_strays();
    unlink(spec.stdout_path.c_str());
    unlink(spec.stderr_path.c_str());
    if (!trace_path.empty()) {
        std::istringstream in(read_file(trace_path));
        std::string line;
        while (std::getline(in, line)) {
            std::istringstream w(line);
            std::string k, name;
            unsigned long long ns = 0;
            if (w >> k >> ns >> name && k == key) {
                if (name[0] == '@') pr.trace_stages.push_back(name);  // "@loaded", "@injected"
                else {
                    pr.kernels.push_back(name);
                    pr.durations_ns.push_back(ns);
                }
            }
        }
        unlink(trace_path.c_str());
    }
    return pr;
}

// Copies what the program emitted (regular files with plain names only: no links, no pipes)
// to a private folder, and has the trusted solution check it.
bool Grader::verify(const std::string& emitted, const std::string& variants, const std::string& sizes,
                    unsigned long long seed, std::vector<RowVerdict>& rows, std::string& problem) {
    const std::string judged = private_ + "/judged";
    remove_tree(judged);
    make_dirs(judged);
    for (const std::string& f : list_dir(emitted)) {
        if (f.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_x.-") != std::string::npos) continue;
        int in = open((emitted + "/" + f).c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
        if (in < 0) continue;
        struct stat st;
        if (fstat(in, &st) == 0 && S_ISREG(st.st_mode) && st.st_size <= (4ll << 30)) {
            int out = open((judged + "/" + f).c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
            char buf[1 << 16];
            ssize_t n;
            while (out >= 0 && (n = read(in, buf, sizeof buf)) > 0) (void)!write(out, buf, static_cast<size_t>(n));
            if (out >= 0) close(out);
        }
        close(in);
    }
    remove_tree(emitted);
    const std::string verdict = private_ + "/verdict.json";
    unlink(verdict.c_str());
    ProgramRun v = run_program(info_.sol, {"--variant", variants, "--size", sizes, "--seed", std::to_string(seed), "--reps", "1",
                                           "--verify-outputs", judged, "--json", verdict},
                               private_ + "/verifier", false, false, std::max(600.0, 4 * rubric_.run_timeout_s));
    remove_tree(judged);
    rows.clear();
    if (v.run.exit_code != cudalabs::kExitPass && v.run.exit_code != cudalabs::kExitFail) {
        problem = "the reference checker failed (" + v.run.describe() + "): " + clip(v.run.err, 500);
        return false;
    }
    try {
        json j = json::parse(read_file(verdict));
        if (device_ == "unknown") device_ = j["device"]["name"].get<std::string>() + " (driver " + j["device"]["cuda_driver"].get<std::string>() + ")";
        for (const json& row : j["results"])
            rows.push_back({row["variant"], row["size"], row["status"], row["note"]});
    } catch (const std::exception& e) {
        problem = std::string("the reference checker wrote no readable verdict: ") + e.what();
        return false;
    }
    return true;
}

std::vector<std::string> Grader::sizes_for(const TestSpec& t, unsigned long long seed) const {
    std::vector<std::string> sizes = t.sizes;
    std::mt19937_64 rng(seed);
    for (int k = 0; k < t.random_sizes.count; ++k) {
        std::string s;
        for (size_t e = 0; e < t.random_sizes.min.size(); ++e) {
            std::uniform_int_distribution<long long> d(t.random_sizes.min[e], t.random_sizes.max[e]);
            s += (e ? "x" : "") + std::to_string(d(rng));
        }
        sizes.push_back(s);
    }
    return sizes;
}

std::string Grader::hint_for(const Submission& s, const std::string& variant) const {
    return cudalabs::todo_hint(s.source_copy, s.result.file, "lab" + cfg_.lab, variant);
}

// Whether any kernel that ran is one of `defined` (compared by kernel_key, so that mangled and
// demangled spellings of the same kernel match).
bool any_kernel_of(const std::vector<std::string>& ran, const std::set<std::string>& defined) {
    std::set<std::string> keys;
    for (const std::string& d : defined) keys.insert(kernel_key(d));
    for (const std::string& k : ran)
        if (keys.count(kernel_key(k))) return true;
    return false;
}

std::string program_fate(const RunResult& r) {
    if (r.ok()) return "";
    if (!r.started) return "your program could not start: " + r.error;
    if (r.timed_out) return "your program " + r.describe() + " (an endless loop or a hang?)";
    if (r.signal) return "your program was " + r.describe() + " (a crash in host code?)";
    if (r.exit_code == cudalabs::kExitFail) return "";  // the usual "a check failed": the verdict below is what counts
    if (r.exit_code > 128 && r.exit_code < 128 + 65) {
        // bubblewrap (like a shell) reports a child killed by signal N as exit 128 + N.
        RunResult as_signal = r;
        as_signal.signal = r.exit_code - 128;
        return "your program was " + as_signal.describe() + " (a crash in host code?)";
    }
    return "your program ended with " + r.describe();
}

TestResult Grader::run_correctness(Submission& s, const TestSpec& t) {
    TestResult res{t.id, t.name, 0, t.points, t.visibility, ""};
    std::ostringstream out;
    size_t rows_total = 0, rows_passed = 0;
    std::map<std::string, std::pair<int, int>> tally;  // variant/size -> (trials passed, failed)
    // Variants that timed out or failed every size, and why: not run again. emplace keeps the
    // first reason.
    std::map<std::string, std::string> hung;
    const double timeout = t.timeout_s > 0 ? t.timeout_s : rubric_.run_timeout_s;
    for (int trial = 0; trial < t.trials; ++trial) {
        unsigned long long seed = derive_seed(cfg_.seed, t.id, trial);
        std::vector<std::string> sizes = sizes_for(t, seed);
        const std::string size_list = join(sizes, ",");
        for (const std::string& v : t.variants) {
            if (hung.count(v)) {
                // Later trials exist to catch results that change from run to run; after a
                // hang or a trial where every size failed they would only repeat it.
                out << "trial " << trial + 1 << ", " << v << ": not run again (" << hung[v] << ")\n";
                rows_total += sizes.size();
                continue;
            }
            const std::string emit = s.run_dir + "/out";
            remove_tree(emit);
            make_dirs(emit);
            // --guard-buffers: guard zones catch out-of-bounds writes and inputs are checked
            // unchanged (not in the sanitizer runs: memcheck wants exactly sized allocations).
            ProgramRun pr = run_program(s.program, {"--variant", v, "--size", size_list, "--seed", std::to_string(seed),
                                                    "--reps", "1", "--guard-buffers", "--emit-outputs", emit},
                                        s.run_dir, true, t.require_kernels, timeout);
            std::vector<RowVerdict> rows;
            std::string problem;
            bool verified = verify(emit, v, size_list, seed, rows, problem);
            out << "trial " << trial + 1 << ", " << v << ", seed " << seed << ", sizes " << size_list << ":\n";
            if (pr.run.timed_out) hung.emplace(v, "it timed out");
            std::string fate = program_fate(pr.run);
            if (!fate.empty()) out << "  " << fate << "\n";
            if (!verified) {
                out << "  " << problem << "\n";
                hung.emplace(v, "no verdict in trial " + std::to_string(trial + 1));
                rows_total += sizes.size();
                continue;
            }
            bool kernels_ran = any_kernel_of(pr.kernels, s.kernels);
            bool kernel_rule = t.require_kernels && trace_ok_ && !kernels_ran;
            size_t passed_here = 0, verified_here = 0;
            std::string first_failure;
            for (const RowVerdict& row : rows) {
                if (row.variant != v) continue;
                verified_here += row.status == "PASS";
                bool ok = row.status == "PASS" && !kernel_rule;
                ++rows_total;
                passed_here += ok;
                rows_passed += ok;
                auto& count = tally[v + "/" + row.size];
                (ok ? count.first : count.second) += 1;
                if (!ok && row.status != "PASS") {
                    std::string note = replace_all(row.note, private_ + "/judged/", "");
                    size_t semi = note.find("; see TODO");
                    if (semi != std::string::npos) note = note.substr(0, semi);
                    out << "  FAIL at size " << row.size << ": " << note << "\n";
                    if (first_failure.empty()) first_failure = note;
                }
            }
            if (kernel_rule && verified_here > 0)
                out << "  " << verified_here << " outputs matched, but none of the kernels in your file ran on the GPU: results "
                       "computed on the CPU, copied, or written by other means do not count\n";
            out << "  " << passed_here << " of " << sizes.size() << " sizes passed\n";
            if (passed_here == 0) hung.emplace(v, "every size failed in trial " + std::to_string(trial + 1));
            if (passed_here < sizes.size()) {
                std::string hint = hint_for(s, v);
                if (!hint.empty()) out << "  " << hint << "\n";
            }
        }
    }
    bool all = rows_total > 0 && rows_passed == rows_total;
    if (t.all_or_nothing) res.score = all ? t.points : 0;
    else res.score = rows_total ? t.points * static_cast<double>(rows_passed) / static_cast<double>(rows_total) : 0;
    std::vector<std::string> flaky;
    for (const auto& [key, count] : tally)
        if (count.first > 0 && count.second > 0) flaky.push_back(key);
    if (!flaky.empty())
        out << "passed in one trial and failed in another: " << join(flaky, " ")
            << " (a result that changes from run to run points to a race)\n";
    res.output = out.str();
    return res;
}

TestResult Grader::run_sanitizer(Submission& s, const TestSpec& t) {
    TestResult res{t.id, t.name, 0, t.points, t.visibility, ""};
    std::ostringstream out;
    unsigned long long seed = derive_seed(cfg_.seed, t.id, 0);
    std::vector<std::string> sizes = sizes_for(t, seed);
    const std::string size_list = join(sizes, ","), variant_list = join(t.variants, ",");
    const std::string emit = s.run_dir + "/out", log = s.run_dir + "/sanitizer.log";
    remove_tree(emit);
    make_dirs(emit);
    unlink(log.c_str());
    std::vector<std::string> prefix = {info_.cuda_home + "/bin/compute-sanitizer", "--tool", t.tool, "--error-exitcode", "99",
                                       "--print-limit", "20", "--log-file", log};
    prefix.insert(prefix.end(), t.tool_options.begin(), t.tool_options.end());
    const double timeout = t.timeout_s > 0 ? t.timeout_s : 4 * rubric_.run_timeout_s;
    ProgramRun pr = run_program(s.program, {"--variant", variant_list, "--size", size_list, "--seed", std::to_string(seed),
                                            "--reps", "1", "--emit-outputs", emit},
                                s.run_dir, true, false, timeout, prefix);
    std::string text = replace_all(read_file(log), s.run_dir + "/", "");
    unlink(log.c_str());
    std::vector<RowVerdict> rows;
    std::string problem;
    bool verified = verify(emit, variant_list, size_list, seed, rows, problem);
    size_t passed = 0;
    for (const RowVerdict& r : rows) passed += r.status == "PASS";
    bool outputs_ok = verified && !rows.empty() && passed == rows.size();
    // The summary line is the sanitizer's own; 0 errors (or hazards) is what passes.
    bool clean = text.find("ERROR SUMMARY: 0 errors") != std::string::npos ||
                 text.find("RACECHECK SUMMARY: 0 hazards") != std::string::npos;
    out << "compute-sanitizer --tool " << t.tool << (t.tool_options.empty() ? "" : " " + join(t.tool_options, " "))
        << " on variants " << variant_list << ", sizes " << size_list << ", seed " << seed << ":\n";
    std::string fate = program_fate(pr.run);
    if (!fate.empty() && pr.run.exit_code != 99) out << "  " << fate << "\n";
    if (!verified) out << "  " << problem << "\n";
    else if (!outputs_ok) out << "  " << passed << " of " << rows.size() << " outputs were right under the sanitizer: this test needs them all\n";
    if (!clean && !text.empty()) out << clip(text, 6000) << "\n";
    else if (text.empty()) out << "  the sanitizer wrote no report (did the program end early?)\n";
    else out << "  no errors found\n";
    res.score = clean && outputs_ok ? t.points : 0;
    res.output = out.str();
    return res;
}

TestResult Grader::run_performance(Submission& s, const TestSpec& t) {
    TestResult res{t.id, t.name, 0, t.points, t.visibility, ""};
    std::ostringstream out;
    if (!trace_ok_) {
        res.output = "not timed: the grader ran without its kernel trace (CUPTI); ask your instructor";
        return res;
    }
    const std::string& v = t.variants[0];
    const std::string& size = t.sizes[0];
    unsigned long long seed = derive_seed(cfg_.seed, t.id, 0);
    const double timeout = t.timeout_s > 0 ? t.timeout_s : rubric_.run_timeout_s;
    std::vector<std::string> args = {"--variant", v, "--size", size, "--seed", std::to_string(seed), "--reps", std::to_string(t.reps)};
    std::vector<double> ratios;
    double student_ms = 0, ref_ms = 0;
    for (int round = 0; round < t.rounds; ++round) {
        double ns[2] = {0, 0};
        size_t launches[2] = {0, 0};
        bool failed = false;
        for (int k = 0; k < 2; ++k) {
            // Alternate who goes first, so that clocks warming up or throttling favour no one.
            bool student = (k == 0) == (round % 2 == 1);
            ProgramRun pr = student ? run_program(s.program, args, s.run_dir, true, true, timeout)
                                    : run_program(info_.sol, args, private_ + "/reference", false, true, timeout);
            const std::set<std::string>& mine = student ? s.kernels : sol_kernels_;
            for (size_t i = 0; i < pr.kernels.size(); ++i)
                if (any_kernel_of({pr.kernels[i]}, mine)) { ns[student] += static_cast<double>(pr.durations_ns[i]); ++launches[student]; }
            if (student && !pr.run.ok()) { out << program_fate(pr.run) << "\n"; failed = true; }
        }
        if (failed) break;
        if (launches[1] == 0) { out << "round " << round + 1 << ": none of your kernels ran\n"; ratios.clear(); break; }
        if (launches[0] == 0 || ns[0] <= 0) { out << "round " << round + 1 << ": the reference recorded no kernel time (grader problem)\n"; ratios.clear(); break; }
        ratios.push_back(ns[1] / ns[0]);
        student_ms += ns[1] / 1e6 / static_cast<double>(launches[1]);
        ref_ms += ns[0] / 1e6 / static_cast<double>(launches[0]);
        out << "round " << round + 1 << ": yours " << format_points(ns[1] / 1e6) << " ms in " << launches[1]
            << " launches, reference " << format_points(ns[0] / 1e6) << " ms in " << launches[0] << " launches\n";
    }
    if (ratios.size() == static_cast<size_t>(t.rounds)) {
        std::vector<double> sorted = ratios;
        std::sort(sorted.begin(), sorted.end());
        size_t m = sorted.size();
        double slowdown = m % 2 ? sorted[m / 2] : 0.5 * (sorted[m / 2 - 1] + sorted[m / 2]);
        double fraction = t.curve.fraction(slowdown);
        res.score = t.points * fraction;
        char buf[256];
        std::snprintf(buf, sizeof buf, "%s at %s on %s: %.2fx the reference's kernel time (median of %d interleaved rounds) -> %.0f%% of the points\n",
                      v.c_str(), size.c_str(), device_.c_str(), slowdown, t.rounds, 100 * fraction);
        out << buf;
        std::snprintf(buf, sizeof buf, "mean kernel time per launch: yours %.4f ms, reference %.4f ms\n",
                      student_ms / static_cast<double>(t.rounds), ref_ms / static_cast<double>(t.rounds));
        out << buf;
        std::string curve;
        for (auto& p : t.curve.points) curve += (curve.empty() ? "" : ", ") + format_points(p.first) + "x -> " + format_points(100 * p.second) + "%";
        out << "curve: " << curve << "\n";
    }
    res.output = out.str();
    return res;
}

void Grader::self_test() {
    // The reference solution must run inside the sandbox exactly as a student's program will:
    // if it cannot (no user namespaces for bubblewrap, a memory limit CUDA cannot start under),
    // step down and say so, rather than fail every student.
    const std::string dir = private_ + "/selftest";
    make_dirs(dir);
    const std::string prog = dir + "/reference";
    write_file(prog, read_file(info_.sol));
    chmod(prog.c_str(), 0700);
    // A variant and size of the rubric's first correctness test (not a yardstick, which checks
    // nothing and so exits 1).
    std::string small = "1", variant = variants_.front();
    for (const TestSpec& t : rubric_.tests)
        if (!t.sizes.empty() && t.kind == TestKind::Correctness) { small = t.sizes[0]; variant = t.variants[0]; break; }
    auto attempt = [&]() {
        return run_program(prog, {"--variant", variant, "--size", small, "--reps", "1"}, dir, true, true, 120);
    };
    trace_ok_ = !cfg_.no_trace && !info_.trace_lib.empty();
    std::vector<std::string> steps;
    ProgramRun pr = attempt();
    if (pr.run.exit_code == cudalabs::kExitNoGpu) { have_gpu_ = false; return; }
    if (!pr.run.ok() && run_limits_.mem_mb > 0) {
        steps.push_back("memory limit dropped: the reference would not run under RLIMIT_DATA=" + std::to_string(run_limits_.mem_mb) + " MiB");
        run_limits_.mem_mb = 0;
        pr = attempt();
    }
    if (!pr.run.ok() && iso_.level == "bwrap" && cfg_.isolation == "auto") {
        steps.push_back("bubblewrap dropped: the reference would not run in it (" + pr.run.describe() + ": " + clip(pr.run.err, 300) + ")");
        iso_.level = "rlimits";
        pr = attempt();
    }
    if (!pr.run.ok())
        throw std::runtime_error("the reference solution does not run in the sandbox (" + pr.run.describe() + "):\n" + clip(pr.run.out + pr.run.err, 3000));
    if (trace_ok_) {
        // The trace must see the reference's own kernels (by name), or every student would
        // fail the kernel check: then it is turned off, loudly.
        bool seen = any_kernel_of(pr.kernels, sol_kernels_);
        ProgramRun all;
        if (!seen) {
            all = run_program(prog, {"--size", small, "--reps", "1"}, dir, true, true, 120);
            seen = any_kernel_of(all.kernels, sol_kernels_);
        }
        if (!seen) {
            trace_ok_ = false;
            std::vector<std::string> names(all.kernels.begin(), all.kernels.begin() + std::min<size_t>(3, all.kernels.size()));
            steps.push_back("WARNING: the CUPTI kernel trace recorded no kernel of the reference (trace stages: " +
                            (all.trace_stages.empty() ? std::string("none") : join(all.trace_stages, " ")) +
                            "; kernels seen: " + (names.empty() ? std::string("none") : join(names, " ")) +
                            "), so it is off: results computed without kernels are not detected and performance is not timed");
            std::fprintf(stderr, "grade: %s\n", steps.back().c_str());
        }
    }
    std::ostringstream d;
    if (iso_.level == "bwrap")
        d << "bubblewrap (" << iso_.bwrap << "): no network, own PID/IPC/UTS namespaces, read-only /usr /etc /sys and the CUDA toolkit, "
             "private /tmp, only the submission's working folder writable, solutions and grader files not visible";
    else
        d << "no bubblewrap (" << (cfg_.isolation == "rlimits" ? "not requested" : "not available or not working here")
          << "): the submission runs as the grader's user and can read what that user can, network included";
    d << "; own process group killed at the time limit; rlimits: core 0, file " << run_limits_.file_mb << " MiB, open files "
      << run_limits_.open_files << ", data " << (run_limits_.mem_mb ? std::to_string(run_limits_.mem_mb) + " MiB" : "unlimited")
      << ", processes " << (run_limits_.processes && geteuid() != 0 ? std::to_string(run_limits_.processes) : "unlimited (root)")
      << "; scrubbed environment; private working directory; kernel trace: " << (trace_ok_ ? "CUPTI" : "off");
    for (const std::string& s : steps) d << "; " << s;
    isolation_text_ = d.str();
}

void Grader::grade_tests(Submission& s, size_t index, size_t count) {
    std::map<std::string, TestResult> done;
    for (const TestSpec& t : rubric_.tests) {
        std::fprintf(stderr, "[%zu/%zu] %s: %s (elapsed %s)\n", index + 1, count, s.id.c_str(), t.id.c_str(), elapsed_text(elapsed()).c_str());
        // A test that needs others at full marks is not even run without them (a hang or a wrong
        // result would only repeat itself, and cost the whole class time).
        std::string missing;
        for (const std::string& need : t.requires_tests) {
            auto it = done.find(need);
            if (missing.empty() && (it == done.end() || !it->second.passed())) missing = it == done.end() ? need : it->second.name;
        }
        TestResult r{t.id, t.name, 0, t.points, t.visibility, ""};
        if (!missing.empty()) r.output = "not run: it needs full marks in '" + missing + "' first";
        else if (t.kind == TestKind::Correctness) r = run_correctness(s, t);
        else if (t.kind == TestKind::Sanitizer) r = run_sanitizer(s, t);
        else r = run_performance(s, t);
        done[t.id] = r;
        s.result.tests.push_back(r);
    }
}

int Grader::run() {
    become_subreaper();
    cfg_.root = absolute(cfg_.root);
    if (cfg_.rubric_path.empty()) cfg_.rubric_path = cfg_.root + "/grading/rubrics/" + cfg_.lab + ".rubric";
    rubric_ = load_rubric(cfg_.rubric_path);
    rubric_sha_ = sha256_hex(read_file(cfg_.rubric_path));
    if (rubric_.lab != cfg_.lab) throw UsageError(cfg_.rubric_path + " is the rubric of lab " + rubric_.lab + ", not " + cfg_.lab);

    // A regrade reuses the earlier seed (unless one is given) and compares.
    std::map<std::string, json> previous;
    if (!cfg_.regrade.empty()) {
        std::istringstream in(read_file(cfg_.regrade));
        std::string line;
        while (std::getline(in, line)) {
            if (line.empty()) continue;
            json j = json::parse(line);
            if (j.value("event", "") == "run" && !cfg_.seed) cfg_.seed = j["seed"].get<unsigned long long>();
            if (j.value("event", "") == "submission") previous[j["student"].get<std::string>()] = j;
        }
        if (previous.empty()) throw UsageError(cfg_.regrade + " holds no graded submission");
    }
    if (!cfg_.seed) {
        std::random_device rd;
        cfg_.seed = 1 + (static_cast<unsigned long long>(rd()) << 16 ^ rd()) % 2147483646ull;
    }
    if (cfg_.out_dir.empty()) {
        char stamp[32];
        std::time_t now = std::time(nullptr);
        std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", std::localtime(&now));
        cfg_.out_dir = cfg_.root + "/build/grading/lab" + cfg_.lab + "-" + stamp;
    }
    make_dirs(cfg_.out_dir);
    out_ = absolute(cfg_.out_dir);
    private_ = out_ + "/.private";
    make_dirs(private_);
    chmod(private_.c_str(), 0700);
    for (const char* d : {"feedback", "results", "work"}) make_dirs(out_ + "/" + d);

    std::fprintf(stderr, "grade: lab %s, rubric %s, seed %llu, results in %s\n", cfg_.lab.c_str(), cfg_.rubric_path.c_str(), cfg_.seed, out_.c_str());
    std::fprintf(stderr, "grade: building the trusted tree (make grading-info LAB=%s)...\n", cfg_.lab.c_str());
    load_lab();

    run_limits_.mem_mb = rubric_.mem_limit_mb;
    run_limits_.file_mb = rubric_.file_limit_mb;
    run_limits_.processes = rubric_.process_limit;
    run_limits_.keep_output = 16 << 10;
    if (cfg_.isolation != "rlimits") {
        std::string bw;
        for (const char* p : {"/usr/bin/bwrap", "/bin/bwrap", "/usr/local/bin/bwrap"}) if (exists(p)) { bw = p; break; }
        if (const char* path = std::getenv("PATH"))
            for (const std::string& d : split_ws(replace_all(path, ":", " ")))
                if (bw.empty() && exists(d + "/bwrap")) bw = d + "/bwrap";
        Isolation probe;
        probe.level = "bwrap";
        probe.bwrap = bw;
        RunSpec spec;
        spec.argv = probe.wrap({"/bin/true"}, private_);
        spec.cwd = private_;
        spec.env = scrubbed_env(private_, "/usr/bin");
        spec.limits.wall_s = 30;
        bool works = !bw.empty() && run_process(spec).ok();
        if (works) iso_ = probe;
        else if (cfg_.isolation == "bwrap") throw std::runtime_error(bw.empty() ? "bwrap not found (Debian package bubblewrap)" : "bwrap does not work on this machine (user namespaces disabled?)");
    }
    iso_.readonly = {info_.cuda_home};
    if (!info_.trace_lib.empty()) iso_.readonly.push_back(info_.trace_lib);

    if (!cfg_.compile_only) {
        std::fprintf(stderr, "grade: checking the sandbox with the reference solution...\n");
        self_test();
        if (!have_gpu_) {
            std::fprintf(stderr, "grade: no usable CUDA GPU: grading needs one to run the programs (--compile-only builds and audits without)\n");
            return cudalabs::kExitNoGpu;
        }
        bool needs_sanitizer = std::any_of(rubric_.tests.begin(), rubric_.tests.end(), [](const TestSpec& t) { return t.kind == TestKind::Sanitizer; });
        if (needs_sanitizer && !cfg_.compile_only && !exists(info_.cuda_home + "/bin/compute-sanitizer"))
            throw std::runtime_error("the rubric has sanitizer tests but " + info_.cuda_home + "/bin/compute-sanitizer does not exist");
    } else {
        isolation_text_ = iso_.level == "bwrap" ? "bubblewrap (compile only)" : "rlimits (compile only)";
    }
    std::fprintf(stderr, "grade: isolation: %s\n", isolation_text_.c_str());

    std::vector<Submission> subs = collect();
    if (subs.empty()) throw UsageError("no submissions found");
    if (!cfg_.gradescope.empty() && subs.size() != 1) throw UsageError("--gradescope needs exactly one submission");

    // Compile in parallel: no student code runs in this phase and timing is not involved.
    std::atomic<size_t> next{0}, finished{0};
    std::mutex progress;
    int jobs = cfg_.jobs > 0 ? cfg_.jobs : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    std::vector<std::thread> pool;
    for (int j = 0; j < jobs; ++j)
        pool.emplace_back([&] {
            for (size_t i; (i = next++) < subs.size();) {
                try {
                    prepare(subs[i]);
                } catch (const std::exception& e) {
                    subs[i].result.rejected = std::string("grader error while building: ") + e.what();
                }
                std::lock_guard<std::mutex> lock(progress);
                std::fprintf(stderr, "[%zu/%zu] built %s: %s (elapsed %s)\n", ++finished, subs.size(), subs[i].id.c_str(),
                             subs[i].ready ? "ok" : subs[i].result.rejected.substr(0, 100).c_str(), elapsed_text(elapsed()).c_str());
            }
        });
    for (std::thread& t : pool) t.join();

    // Results are written as each submission finishes, so that a run cut short keeps them.
    std::ofstream audit(out_ + "/audit.jsonl", std::ios::app);
    json run_line = {{"event", "run"}, {"lab", cfg_.lab}, {"seed", cfg_.seed}, {"rubric", cfg_.rubric_path}, {"rubric_sha256", rubric_sha_},
                     {"isolation", isolation_text_}, {"tools", tools_}, {"compile_only", cfg_.compile_only}, {"submissions", subs.size()}};
    if (!cfg_.regrade.empty()) run_line["regrade_of"] = cfg_.regrade;
    audit << run_line.dump() << "\n" << std::flush;
    std::vector<std::string> regrade_notes;
    std::vector<StudentResult> all;
    size_t same = 0;
    for (size_t i = 0; i < subs.size(); ++i) {
        Submission& s = subs[i];
        auto t0 = std::chrono::steady_clock::now();
        if (s.ready && !cfg_.compile_only) {
            grade_tests(s, i, subs.size());
            remove_tree(s.run_dir + "/out");
        } else {
            for (const TestSpec& t : rubric_.tests)
                s.result.tests.push_back({t.id, t.name, 0, t.points, t.visibility,
                                          s.ready ? "not run (--compile-only)" : "not run: " + s.result.rejected});
        }
        s.result.execution_time_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        const double remaining = elapsed() / static_cast<double>(i + 1) * static_cast<double>(subs.size() - i - 1);
        std::fprintf(stderr, "[%zu/%zu] %s: %s/%s (elapsed %s, about %s left)\n", i + 1, subs.size(), s.id.c_str(),
                     format_points(s.result.total()).c_str(), format_points(rubric_.total_points()).c_str(),
                     elapsed_text(elapsed()).c_str(), elapsed_text(remaining).c_str());
        json line = json::parse(audit_json(s.result, cfg_.lab, cfg_.seed, device_, iso_.level, tools_, rubric_sha_));
        line["event"] = "submission";
        if (!previous.empty()) {
            auto it = previous.find(s.id);
            std::string note;
            if (it == previous.end()) note = s.id + ": not in the earlier run";
            else if (it->second["sha256"] != s.result.sha256) note = s.id + ": the submission changed since the earlier run";
            else {
                std::vector<std::string> diffs;
                for (const TestResult& t : s.result.tests) {
                    double before = it->second["scores"].value(t.id, -1.0);
                    if (std::fabs(before - t.score) > 1e-6) diffs.push_back(t.id + " " + format_points(before) + " -> " + format_points(t.score));
                }
                if (diffs.empty()) ++same;
                else note = s.id + ": results differ from the earlier run: " + join(diffs, ", ");
            }
            line["same_as_before"] = note.empty();
            if (!note.empty()) regrade_notes.push_back(note);
        }
        audit << line.dump() << "\n" << std::flush;
        write_file(out_ + "/feedback/" + s.id + ".md", feedback_markdown(s.result, "Lab " + cfg_.lab + (rubric_.title.empty() ? "" : " -- " + rubric_.title)));
        write_file(out_ + "/results/" + s.id + ".json", gradescope_json(s.result));
        all.push_back(s.result);
        std::ofstream partial(out_ + "/gradebook.csv");
        write_gradebook(partial, all, rubric_);
    }
    if (!cfg_.gradescope.empty()) write_file(cfg_.gradescope, gradescope_json(subs[0].result));
    std::ofstream csv(out_ + "/gradebook.csv");
    write_gradebook(csv, all, rubric_);
    std::string summary = summary_table(all, rubric_);
    std::ostringstream tail;
    tail << "lab " << cfg_.lab << ", " << subs.size() << " submissions, seed " << cfg_.seed << ", device " << device_ << "\n"
         << "isolation: " << isolation_text_ << "\n" << tools_ << "\n";
    if (!previous.empty()) {
        tail << "regrade of " << cfg_.regrade << ": " << same << " of " << subs.size() << " identical\n";
        for (const std::string& n : regrade_notes) tail << "  " << n << "\n";
    }
    write_file(out_ + "/summary.txt", summary + "\n" + tail.str());
    std::cout << summary << "\n" << tail.str() << "results: " << out_ << "\n";
    return 0;
}

Config parse_command_line(int argc, char** argv) {
    Config c;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) throw UsageError(a + " needs a value");
            return argv[++i];
        };
        auto number = [&](const std::string& text) {
            return static_cast<unsigned long long>(cudalabs::parse_positive(text, a));
        };
        if (a == "-h" || a == "--help") { std::cout << kUsage; std::exit(0); }
        else if (a == "--lab") c.lab = value();
        else if (a == "--rubric") c.rubric_path = value();
        else if (a == "--out") c.out_dir = value();
        else if (a == "--seed") c.seed = number(value());
        else if (a == "--regrade") c.regrade = value();
        else if (a == "--isolation") c.isolation = value();
        else if (a == "--jobs") c.jobs = static_cast<int>(std::min(256ull, number(value())));
        else if (a == "--compile-only") c.compile_only = true;
        else if (a == "--no-trace") c.no_trace = true;
        else if (a == "--gradescope") c.gradescope = value();
        else if (a == "--root") c.root = value();
        else if (!a.empty() && a[0] == '-') throw UsageError("unknown option '" + a + "' (see --help)");
        else c.inputs.push_back(a);
    }
    if (c.lab.size() == 1 && std::isdigit(static_cast<unsigned char>(c.lab[0]))) c.lab = "0" + c.lab;
    if (c.lab.size() != 2 || !std::isdigit(static_cast<unsigned char>(c.lab[0])) || !std::isdigit(static_cast<unsigned char>(c.lab[1])))
        throw UsageError("--lab NN is required (two digits, like 01)");
    if (c.isolation != "auto" && c.isolation != "bwrap" && c.isolation != "rlimits")
        throw UsageError("--isolation must be auto, bwrap or rlimits");
    if (c.inputs.empty()) throw UsageError("no submissions given");
    return c;
}

}  // namespace

int main(int argc, char** argv) {
    Config cfg;
    try {
        cfg = parse_command_line(argc, argv);
    } catch (const UsageError& e) {
        std::cerr << "grade: error: " << e.what() << "\n";
        return cudalabs::kExitUsage;
    }
    try {
        return Grader(cfg).run();
    } catch (const UsageError& e) {
        std::cerr << "grade: error: " << e.what() << "\n";
        return cudalabs::kExitUsage;
    } catch (const RubricError& e) {
        std::cerr << "grade: rubric error: " << e.what() << "\n";
        return cudalabs::kExitUsage;
    } catch (const std::exception& e) {
        std::cerr << "grade: error: " << e.what() << "\n";
        return cudalabs::kExitFail;
    }
}
