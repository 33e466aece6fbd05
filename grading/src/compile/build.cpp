#include "compile/build.h"

#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cctype>
#include <stdexcept>
#include <thread>

#include "compile/line_directives.h"
#include "util/breakdown.h"
#include "util/sha256.h"
#include "isolation/isolation.h"
#include "util/files.h"
#include "util/text.h"

namespace grading {

namespace {

// A step of the build (the compile, an audit tool, the link) that can reach its time limit
// because the machine was busy (the builds run at a low priority beside the grading's programs):
// one that timed out is made once more with kTimeoutStretch times the limit before the timeout
// counts, at once or later as `retry` says (the compile's: BuildSpec::compile_retry). `note` says
// so where the longer try ended in time; `seconds` is the time of the tries made here.
RunResult run_with_retry(const std::function<RunResult(double limit_s)>& step, double limit_s, const std::string& what,
                         double& seconds, std::string& note, TimeoutRetry retry = TimeoutRetry::Now) {
    const double t0 = steady_now();
    RunResult r;
    if (retry != TimeoutRetry::Longer) r = step(limit_s);
    if (retry == TimeoutRetry::Longer || (retry == TimeoutRetry::Now && r.timed_out)) {
        const double longer = kTimeoutStretch * limit_s;
        r = step(longer);
        if (!r.timed_out)
            note = "the " + what + " took longer than " + number_text(limit_s) + " s (a busy machine can do that), so it was made once more with " +
                   number_text(longer) + " s" + (retry == TimeoutRetry::Longer ? ", after the rest of the class" : "");
    }
    seconds = seconds_since(t0);
    return r;
}

// A step of a build under its limits (kBuildMemoryMiB, kBuildFileMiB, the wall limit `limit_s`),
// output to `out_base`.out/.err: in the sandbox of `isolation` with `cwd` its run folder, else as
// the grader in `cwd`.
RunResult run_limited(const Isolation* isolation, const std::vector<std::string>& argv, const std::string& cwd,
                      const std::vector<std::string>& env, const std::string& out_base, size_t keep_output, double limit_s) {
    RunSpec rs;
    if (isolation) isolation->apply(rs, argv, cwd);
    else {
        rs.argv = argv;
        rs.cwd = cwd;
    }
    rs.env = env;
    rs.limits.wall_s = limit_s;
    rs.limits.mem_mb = kBuildMemoryMiB;
    rs.limits.file_mb = kBuildFileMiB;
    rs.limits.keep_output = keep_output;
    rs.stdout_path = out_base + ".out";
    rs.stderr_path = out_base + ".err";
    RunResult r = run_process(rs);
    // A start refused for a moment (the sandbox user's last processes still exiting) is retried.
    for (int retry = 0; retry < 10 && !r.started && r.error.find("temporarily unavailable") != std::string::npos; ++retry) {
        std::this_thread::sleep_for(std::chrono::milliseconds(500));
        r = run_process(rs);
    }
    return r;
}

// Whether a step ended at the limit on the size of a file it writes (SIGXFSZ, its own or, for the
// compiler driver, a tool's it started).
bool hit_file_limit(const RunResult& r) {
    return r.signal == SIGXFSZ || r.err.find("due to signal 25") != std::string::npos ||
           r.out.find("due to signal 25") != std::string::npos || r.err.find("File size limit exceeded") != std::string::npos;
}

std::string file_limit_sentence(const std::string& step) {
    return step + " reached the " + std::to_string(kBuildFileMiB) +
           " MiB a build may write in one file (a large initialised array in the file?): keep the file's data small";
}

}  // namespace

// Relative paths are the caller's (the tool runs in `scratch` in the sandbox, else in the current
// directory).
std::string AuditTools::output(const std::vector<std::string>& argv) {
    const std::string what = argv[0] + " " + argv.back();
    double seconds = 0;
    std::string note;
    static std::atomic<int> counter{0};
    auto step = [&](double limit_s) {
        if (!isolation) return run_trusted(argv, absolute("."), limit_s, scratch);
        const std::string base = scratch + "/.tool" + std::to_string(counter++);
        RunResult r = run_limited(isolation, argv, scratch, scrubbed_env(scratch, "/usr/bin"), base, 16 << 20, limit_s);
        unlink((base + ".out").c_str());
        unlink((base + ".err").c_str());
        return r;
    };
    RunResult r = run_with_retry(step, timeout_s, "audit's " + argv[0] + " of " + basename_of(argv.back()), seconds, note);
    if (!note.empty()) notes.push_back(note);
    if (r.timed_out)
        throw std::runtime_error(what + ": it took longer than " + number_text(timeout_s) + " s, and again when given " +
                                 number_text(kTimeoutStretch * timeout_s) + " s");
    if (hit_file_limit(r)) throw std::runtime_error(file_limit_sentence(what));
    if (!r.started) throw BuildEnvironmentError(what + ": could not start it" + (isolation ? " in the sandbox" : "") + ": " + r.error);
    if (isolation && r.exit_code != 0 && r.out.empty() && r.err.rfind("bwrap: ", 0) == 0)
        throw BuildEnvironmentError(what + ": the sandbox failed before it ran: " + clip(r.err, 300));
    if (!r.ok() || r.out_truncated)
        throw std::runtime_error(what + ": " + (r.out_truncated ? "too much output" : r.describe()) +
                                 (r.err.empty() ? "" : ": " + clip(r.err, 500)));
    return r.out;
}

namespace {

std::vector<ElfSymbol> object_symbols(const std::string& object, AuditTools& tools) {
    return parse_readelf_symbols(tools.output({"readelf", "-sW", object}));
}

// The kernels of the fatbinaries in `object`'s .nv_fatbin section; false with `error` set when
// the device code cannot be read.
bool fatbin_kernels(const std::string& object, AuditTools& tools, std::set<std::string>& kernels,
                    std::string& error) {
    static std::atomic<int> counter{0};
    const std::string tag = tools.scratch + "/fatbin" + std::to_string(counter++);
    const std::string sections = tools.output({"readelf", "-SW", object});
    bool has_fatbin = false;
    for (const Section& s : parse_readelf_sections(sections)) has_fatbin |= s.name == ".nv_fatbin";
    if (!has_fatbin) return true;  // host code only
    tools.output({"objcopy", "-O", "binary", "--only-section=.nv_fatbin", object, tag + ".bin"});
    const std::string bytes = read_file(tag + ".bin");
    unlink((tag + ".bin").c_str());
    std::vector<FatbinImage> images;
    if (!parse_fatbin(bytes, images, error)) return false;
    int cubins = 0;
    for (const FatbinImage& img : images) {
        if (img.kind != 2) continue;  // PTX: the same kernels as the cubin of its architecture
        if (!img.is_elf()) {
            error = "a compressed or unknown device image (sm_" + std::to_string(img.arch) + ")";
            return false;
        }
        const std::string cubin = tag + "." + std::to_string(cubins++) + ".cubin";
        write_file(cubin, img.data);
        std::string text;
        try {
            text = tools.output({"readelf", "-sW", cubin});
        } catch (const std::exception& e) {
            unlink(cubin.c_str());
            error = e.what();
            return false;
        }
        unlink(cubin.c_str());
        std::set<std::string> entries = device_entries(parse_readelf_symbols(text));
        kernels.insert(entries.begin(), entries.end());
    }
    if (cubins == 0) {
        error = "the device code holds no cubin (PTX only)";
        return false;
    }
    return true;
}

// The rejection: the first five findings (each once: the preprocessing passes see the same
// includes), and how many more.
std::string first_findings(const std::vector<Finding>& found) {
    std::vector<std::string> details;
    for (const Finding& f : found)
        if (std::find(details.begin(), details.end(), f.detail) == details.end()) details.push_back(f.detail);
    std::string msg = "integrity check failed";
    for (size_t i = 0; i < details.size() && i < 5; ++i) msg += (i ? "; " : ": ") + details[i];
    if (details.size() > 5) msg += "; and " + std::to_string(details.size() - 5) + " more";
    return msg;
}

// Runs `argv` in the stage, sandboxed, with the compile's environment and limits (the wall limit
// `wall_s`, else the compile's); output to `out_base`.out/.err.
RunResult run_sandboxed(const BuildSpec& spec, const std::vector<std::string>& argv, const std::string& out_base,
                        size_t keep_output, double wall_s = 0) {
    const std::vector<std::string> env = scrubbed_env(spec.stage_dir, spec.cuda_home + "/bin");
    return run_limited(spec.isolation, argv, spec.stage_dir, env, out_base, keep_output, wall_s > 0 ? wall_s : spec.compile_timeout_s);
}

// A compiler the sandbox could not start, or a sandbox that failed before the compiler ran
// (bubblewrap's own "bwrap: ..." message and nothing else), is the grader's problem, never the
// student's compile error: it throws, and the grader reports a grader error for this student.
void require_sandbox_ran(const RunResult& r, const std::string& what) {
    if (!r.started) throw BuildEnvironmentError("could not start " + what + " in the sandbox: " + r.error);
    if (r.exit_code != 0 && r.out.empty() && r.err.rfind("bwrap: ", 0) == 0)
        throw BuildEnvironmentError("the sandbox failed before " + what + " ran: " + clip(r.err, 300));
}

}  // namespace

std::vector<std::pair<std::string, std::string>> load_import_renames(const std::string& path) {
    if (!exists(path)) throw std::runtime_error("cannot read " + path);
    try {
        return parse_import_renames(read_file(path));
    } catch (const std::invalid_argument& e) {
        throw std::runtime_error(path + ": " + e.what());
    }
}

std::vector<std::string> load_glob_list(const std::string& path) {
    if (!exists(path)) throw std::runtime_error("cannot read " + path);
    return parse_glob_list(read_file(path));
}

std::set<std::string> object_kernels(const std::string& object, const std::string& scratch) {
    AuditTools tools{scratch};
    std::set<std::string> kernels;
    std::string error;
    if (!fatbin_kernels(object, tools, kernels, error))
        throw std::runtime_error("cannot read the device code of " + object + ": " + error);
    return kernels;
}

TrustedSymbols load_trusted_symbols(const std::vector<std::string>& trusted_objects, const std::string& driver_object,
                                    const std::string& scratch) {
    TrustedSymbols t;
    AuditTools tools{scratch};
    std::vector<std::string> objects = trusted_objects;
    if (!driver_object.empty() && std::find(objects.begin(), objects.end(), driver_object) == objects.end())
        objects.push_back(driver_object);
    std::set<std::string> imported;
    for (const std::string& o : objects) {
        for (const ElfSymbol& s : object_symbols(o, tools)) {
            if (s.defined && s.bind != "LOCAL") t.defined.insert(s.name);
            // "_Z" and a length: a function of the global namespace with C++ linkage.
            if (!s.defined && s.name.size() > 2 && s.name.compare(0, 2, "_Z") == 0 &&
                std::isdigit(static_cast<unsigned char>(s.name[2])))
                imported.insert(s.name);
        }
        std::set<std::string> k = object_kernels(o, scratch);
        t.kernels.insert(k.begin(), k.end());
    }
    for (const std::string& s : imported)
        if (!t.defined.count(s)) t.interface.insert(s);
    return t;
}

namespace {

// Where one build happens: the stage (the sandbox's), the grader's private folder beside it, and
// the compiler's folder of intermediate files inside the stage.
struct BuildFolders {
    std::string stage_dir;  // as the spec names it
    std::string stage;      // its real path
    std::string priv;
    std::string keep;       // relative to the stage
    // The compiler's messages with the build's own folders taken out.
    std::string clean(std::string text) const {
        text = replace_all(text, stage + "/", "");
        text = replace_all(text, stage_dir + "/", "");
        text = replace_all(text, keep + "/", "");
        return replace_all(text, priv + "/", "");
    }
};

// `keep`: the compiler's folder's name, where a reused build's files name it; "": a fresh one.
BuildFolders make_build_folders(const BuildSpec& spec, const std::string& keep = "") {
    BuildFolders f;
    f.stage_dir = spec.stage_dir;
    f.stage = real_path(spec.stage_dir);
    if (f.stage.empty()) throw std::runtime_error("no stage folder " + spec.stage_dir);
    f.priv = spec.private_dir.empty() ? f.stage + "/../audit" : spec.private_dir;
    remove_tree(f.priv);
    make_dirs(f.priv);
    chmod(f.priv.c_str(), 0700);
    f.priv = real_path(f.priv);  // (the sandbox binds folders by their real paths)
    // The audit's tools run in the sandbox with this folder as theirs (audit_and_link takes it back).
    if (spec.isolation) prepare_run_folder(f.priv, *spec.isolation);
    // The compiler's intermediate files go to a folder of a name the file cannot know, so that it
    // cannot include them (__has_include would make two runs of its preprocessing differ).
    f.keep = keep.empty() ? "obj-" + random_hex(8) : keep;
    RunResult mk = run_sandboxed(spec, {"mkdir", "-m", "700", f.keep}, f.priv + "/mkdir", 4096);
    if (!mk.ok()) throw std::runtime_error("cannot make the compile's folder in " + f.stage + ": " + mk.describe() + " " + mk.err);
    return f;
}

std::vector<std::string> compile_command(const BuildSpec& spec, const BuildFolders& f) {
    std::vector<std::string> compile = {spec.nvcc};
    compile.insert(compile.end(), spec.nvcc_flags.begin(), spec.nvcc_flags.end());
    // -fno-gnu-unique: template statics become weak symbols, which objcopy can make local.
    // -compress=false: the cubins stay readable (fatbinary compresses debug images otherwise).
    compile.insert(compile.end(), {"-I" + spec.lab_dir, "-Xcompiler", "-fno-gnu-unique", "-Xfatbin", "-compress=false",
                                   "-MD", "-MF", f.keep + "/student.d", "--keep", "--keep-dir", f.keep, "-c",
                                   spec.lab_dir + "/" + spec.topic_file, "-o", f.keep + "/student.o"});
    return compile;
}

// What the compile may read: the staged headers, the system's and the toolkit's, its own file.
IncludeRules include_rules(const BuildSpec& spec, const BuildFolders& f) {
    IncludeRules inc;
    inc.compile_dir = f.stage;
    inc.own_file = real_path(f.stage + "/" + spec.lab_dir + "/" + spec.topic_file);
    for (const std::string& dir : {std::string("common"), spec.lab_dir})
        for (const std::string& name : list_dir(f.stage + "/" + dir)) {
            const std::string p = real_path(f.stage + "/" + dir + "/" + name);
            struct stat st;
            if (!p.empty() && p != inc.own_file && stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode)) inc.staged_headers.insert(p);
        }
    // Where system headers may come from: the system's folders and the CUDA toolkit.
    inc.system_roots = {"/usr/include", "/usr/lib/gcc", "/usr/local/include", spec.cuda_home};
    return inc;
}

void append(std::vector<Finding>& found, const std::vector<Finding>& more) { found.insert(found.end(), more.begin(), more.end()); }

// The host assembly the compiler's host files hold (their .include would quote a file).
std::vector<Finding> host_asm_findings(const BuildFolders& f, const std::vector<std::string>& keep_files, const IncludeRules& inc) {
    std::vector<Finding> found;
    for (const std::string& name : keep_files)
        if (ends_with(name, ".cudafe1.cpp"))
            append(found, audit_host_asm(host_asm_statements(read_file(f.stage + "/" + f.keep + "/" + name)), inc));
    return found;
}

// A failed compile: before any message is shown, what did it read, and did the assembler see host
// assembly (whose .include would quote a file in its errors)? The compiler deletes a failed
// pass's output, so the preprocessing is run again, each pass to a file of the grader's.
BuildResult failed_compile(const BuildSpec& spec, const BuildFolders& f, const std::vector<std::string>& compile, const RunResult& c,
                           const IncludeRules& inc, const std::vector<std::string>& keep_files) {
    BuildResult r;
    std::vector<Finding> found;
    bool verified = true;
    std::vector<std::string> dry = compile;
    dry.push_back("--dryrun");
    RunResult d = run_sandboxed(spec, dry, f.priv + "/dryrun", 1 << 20);
    std::vector<std::vector<std::string>> passes = preprocess_commands(d.err + d.out);
    if (!d.ok() || passes.empty()) verified = false;
    for (size_t k = 0; verified && k < passes.size(); ++k) {
        const std::string out = f.priv + "/pass" + std::to_string(k);
        RunResult p = run_sandboxed(spec, passes[k], out, 4096);
        if (p.timed_out || !p.started) verified = false;
        PreprocessedText pre = parse_preprocessed(read_file(out + ".out"));
        append(found, audit_includes(pre.includes, inc));
        unlink((out + ".out").c_str());
    }
    append(found, host_asm_findings(f, keep_files, inc));
    if (!found.empty()) {
        r.rejected = first_findings(found);
        return r;
    }
    if (hit_file_limit(c)) {
        r.rejected = file_limit_sentence("compile error: a file the compiler wrote");
    } else if (c.timed_out) {
        r.rejected = "compilation took longer than " + number_text(spec.compile_timeout_s) + " s, and again when given " +
                     number_text(kTimeoutStretch * spec.compile_timeout_s) + " s: this is your file's doing";
    } else {
        r.rejected = "compile error (" + c.describe() + ")";
    }
    r.compiler_output = verified ? f.clean(c.out + c.err)
                                 : "(the compiler's messages are not shown: the grader could not check which files "
                                   "the failed compilation read)";
    return r;
}

// The compiler's view of a compile that worked: what it read, the file's own identifiers, host
// assembly.
std::vector<Finding> compiler_view_findings(const BuildSpec& spec, const BuildFolders& f, const IncludeRules& inc,
                                            const std::vector<std::string>& keep_files) {
    std::vector<Finding> found;
    std::vector<Identifier> identifiers;
    int passes = 0;
    for (const std::string& name : keep_files) {
        if (!ends_with(name, ".ii")) continue;
        ++passes;
        PreprocessedText pre = parse_preprocessed(read_file(f.stage + "/" + f.keep + "/" + name));
        append(found, audit_includes(pre.includes, inc));
        append(found, audit_indented_markers(pre.indented_markers));
        identifiers.insert(identifiers.end(), pre.own_identifiers.begin(), pre.own_identifiers.end());
    }
    append(found, audit_identifiers(identifiers, spec.rules.forbid_symbols));
    if (found.empty()) {  // a second view of the same reads: only when the line markers showed nothing
        std::vector<std::string> deps = parse_depfile(read_file(f.stage + "/" + f.keep + "/student.d"));
        append(found, audit_dependencies(deps, inc));
    }
    append(found, host_asm_findings(f, keep_files, inc));
    const bool host_unit = std::any_of(keep_files.begin(), keep_files.end(),
                                       [](const std::string& name) { return ends_with(name, ".cudafe1.cpp"); });
    if (passes == 0 || !host_unit)
        found.push_back({"object", "the grader could not read the compiler's intermediate files"});
    return found;
}

// The object's own findings: what it defines and imports, its device code, direct system calls,
// its sections and start-up code. Fills `kernels` with its kernels.
std::vector<Finding> object_findings(const BuildSpec& spec, const TrustedSymbols& trusted, const std::string& object,
                                     const std::vector<ElfSymbol>& symbols, AuditTools& tools, std::set<std::string>& kernels) {
    std::vector<Finding> found;
    std::string error;
    if (!fatbin_kernels(object, tools, kernels, error))
        found.push_back({"object", "the grader cannot read the file's device code (" + error + ")"});
    append(found, audit_definitions(symbols, kernels, trusted.interface, trusted.kernels));
    std::set<std::string> renamed;
    for (const auto& rn : spec.import_renames) renamed.insert(rn.first);
    append(found, audit_imports(symbols, spec.rules, renamed));
    append(found, audit_forbidden_definitions(symbols, kernels, spec.rules.forbid_symbols));
    for (const std::string& s : system_call_instructions(tools.output({"objdump", "-dw", "--no-show-raw-insn", object})))
        found.push_back({"syscall", "host code makes a system call directly (" + s +
                                        "): the grader allows system calls only through the C library functions it lists"});
    const std::vector<Section> sections = parse_readelf_sections(tools.output({"readelf", "-SW", object}));
    append(found, audit_sections(sections));
    append(found, audit_startup_code(parse_readelf_relocations(tools.output({"readelf", "-rW", object})), symbols, sections));
    return found;
}

// Localize: only the interface stays global; the CUDA copies go to the shims. Returns the final
// object; `found` says what is still wrong with it.
std::string localize(const BuildSpec& spec, const TrustedSymbols& trusted, const std::string& object, const std::vector<ElfSymbol>& symbols,
                     AuditTools& tools, std::vector<Finding>& found) {
    const std::string& priv = tools.scratch;
    const std::string local = priv + "/student.local.o", final_object = priv + "/student.final.o";
    std::string keep_list;
    for (const std::string& s : symbols_to_keep_global(symbols, trusted.interface)) keep_list += s + "\n";
    write_file(priv + "/keep-global.txt", keep_list);
    // Without their COMDAT groups the file's template instances stay its own: a group the
    // harness also has would otherwise be dropped from the file, leaving its calls nowhere.
    tools.output({"objcopy", "--keep-global-symbols=" + priv + "/keep-global.txt", "-R", ".group", object, local});
    std::vector<std::pair<std::string, std::string>> renames = renames_to_apply(symbols, spec.import_renames);
    if (renames.empty()) {
        write_file(final_object, read_file(local));
    } else {
        std::string lines;
        for (const auto& rn : renames) lines += rn.first + " " + rn.second + "\n";
        write_file(priv + "/renames.txt", lines);
        tools.output({"objcopy", "--redefine-syms=" + priv + "/renames.txt", local, final_object});
    }
    found = check_localized(object_symbols(final_object, tools), trusted.interface, spec.import_renames);
    return final_object;
}

// A link with nothing to do (no program to make, or the one linked before reused), as one that worked.
RunResult nothing_to_run() {
    RunResult r;
    r.started = true;
    r.exit_code = 0;
    return r;
}

// The link, outside the sandbox: nothing of the student's runs. Without an output program (the
// audit-only build of the preview, which has no harness to link with) there is none.
RunResult link_program(const BuildSpec& spec, const std::string& final_object, const std::string& priv, double limit_s) {
    if (spec.output_program.empty()) return nothing_to_run();
    std::vector<std::string> link = {spec.nvcc};
    link.insert(link.end(), spec.arch_flags.begin(), spec.arch_flags.end());
    link.insert(link.end(), {"-o", spec.output_program});
    link.insert(link.end(), spec.trusted_objects.begin(), spec.trusted_objects.end());
    link.push_back(final_object);
    link.insert(link.end(), spec.ldlibs.begin(), spec.ldlibs.end());
    std::vector<std::string> env;
    for (char** e = environ; *e; ++e) env.push_back(*e);
    const RunResult r = run_limited(nullptr, link, priv, env, priv + "/link", 64 << 10, limit_s);
    unlink((priv + "/link.out").c_str());
    unlink((priv + "/link.err").c_str());
    return r;
}

// Links the localised object into the program (link_program, or a reused build's program), within
// `limit_s`.
using LinkStep = std::function<RunResult(const std::string& final_object, double limit_s)>;

// A compiled file that passed the compiler's view: its object audited (a private copy, so that
// what is audited is what is linked), localized and linked. `r` is compiled already.
void audit_and_link(const BuildSpec& spec, const TrustedSymbols& trusted, const BuildFolders& f, BuildResult& r, const LinkStep& link) {
    const std::string object = f.priv + "/student.o";
    write_file(object, read_file(f.stage + "/" + f.keep + "/student.o"));
    AuditTools tools{f.priv, 120, spec.isolation};
    std::string final_object;
    try {
        const std::vector<ElfSymbol> symbols = object_symbols(object, tools);
        std::vector<Finding> found = object_findings(spec, trusted, object, symbols, tools, r.kernels);
        if (found.empty()) final_object = localize(spec, trusted, object, symbols, tools, found);
        if (!found.empty()) r.rejected = first_findings(found);
    } catch (const BuildEnvironmentError&) {
        throw;  // the sandbox failed: no student's doing
    } catch (const StorageError&) {
        throw;  // the grader's own write failed: the disk's doing
    } catch (const std::runtime_error& e) {
        r.rejected = std::string("the grader could not audit the compiled file: ") + f.clean(e.what());
    }
    // The audit is over: its folder is the grader's alone again, so that what was audited is
    // what is linked.
    if (spec.isolation) release_run_folder(f.priv);
    std::string link_note;
    if (r.rejected.empty()) {
        RunResult l = run_with_retry([&](double limit_s) { return link(final_object, limit_s); }, spec.compile_timeout_s, "link", r.link_s,
                                     link_note);
        r.ok = l.ok();
        if (!r.ok) {
            r.rejected = hit_file_limit(l) ? file_limit_sentence("link error: the program") : "link error (" + l.describe() + ")";
            r.compiler_output = f.clean(l.out + l.err);
        }
    }
    if (!r.ok) r.kernels.clear();
    std::vector<std::string> notes = tools.notes;  // the audit's, then the link's
    if (!link_note.empty()) notes.push_back(link_note);
    r.note = join(notes, "; ");
}

// The audit of a compile that worked (its files in the stage's `f.keep`), then the link.
BuildResult audit_compiled(const BuildSpec& spec, const TrustedSymbols& trusted, const BuildFolders& f, const std::string& compiler_output,
                           const LinkStep& link) {
    const double t0 = steady_now();
    BuildResult r;
    r.compiled = true;
    r.compiler_output = compiler_output;
    const IncludeRules inc = include_rules(spec, f);
    const std::vector<Finding> found = compiler_view_findings(spec, f, inc, list_dir(f.stage + "/" + f.keep));
    if (!found.empty()) r.rejected = first_findings(found);
    else audit_and_link(spec, trusted, f, r, link);
    r.audit_s = seconds_since(t0) - r.link_s;
    return r;
}

// A fresh build; with a cache, a compile that worked is kept (its files, its messages, and once
// linked its object's hash and program) for identical files after it.
BuildResult build_fresh(const BuildSpec& spec, const TrustedSymbols& trusted) {
    const BuildFolders f = make_build_folders(spec);
    const std::vector<std::string> compile = compile_command(spec, f);
    double compile_s = 0;
    std::string note;
    RunResult c = run_with_retry(
        [&](double limit_s) { return run_sandboxed(spec, compile, f.priv + "/compile", 64 << 10, limit_s); }, spec.compile_timeout_s,
        "compilation", compile_s, note, spec.compile_retry);
    require_sandbox_ran(c, "the compiler");
    if (!c.ok()) {
        if (spec.cache) spec.cache->abandon(spec.cache_key);  // each file that fails to compile is compiled again
        if (c.timed_out && spec.compile_retry == TimeoutRetry::Later) {
            BuildResult later;
            later.put_off = true;
            later.compile_s = compile_s;
            return later;
        }
        BuildResult r = failed_compile(spec, f, compile, c, include_rules(spec, f), list_dir(f.stage + "/" + f.keep));
        r.compile_s = compile_s;
        r.note = note;
        return r;
    }
    CachedBuild kept;
    if (spec.cache) {
        kept.keep_name = f.keep;
        kept.files = spec.cache->files_folder(spec.cache_key);
        kept.compiler_output = f.clean(c.out + c.err);
        remove_tree(kept.files);
        make_dirs(kept.files);
        for (const std::string& name : list_dir(f.stage + "/" + f.keep))
            write_file(kept.files + "/" + name, read_file(f.stage + "/" + f.keep + "/" + name));
    }
    BuildResult r = audit_compiled(spec, trusted, f, f.clean(c.out + c.err),
                                   [&](const std::string& final_object, double limit_s) {
                                       return link_program(spec, final_object, f.priv, limit_s);
                                   });
    r.compile_s = compile_s;
    if (!note.empty()) r.note = note + (r.note.empty() ? "" : "; " + r.note);  // the compile's, then the audit's and the link's
    if (spec.cache && r.ok) {
        kept.final_object_sha256 = sha256_hex(read_file(f.priv + "/student.final.o"));
        kept.program = kept.files + "/program";
        write_file(kept.program, read_file(spec.output_program));
    }
    if (spec.cache) spec.cache->store(spec.cache_key, kept);
    return r;
}

// A file built before: the compiler's files of that build are put in this stage under the name
// they use, and audited as this build's own; its program is reused where the localised object is
// the one linked before, else linked again.
BuildResult build_reused(const BuildSpec& spec, const TrustedSymbols& trusted, const CachedBuild& kept) {
    const BuildFolders f = make_build_folders(spec, kept.keep_name);
    for (const std::string& name : list_dir(kept.files))
        if (name != "program") write_file(f.stage + "/" + f.keep + "/" + name, read_file(kept.files + "/" + name));
    BuildResult r = audit_compiled(spec, trusted, f, kept.compiler_output, [&](const std::string& final_object, double limit_s) {
        if (kept.program.empty() || sha256_hex(read_file(final_object)) != kept.final_object_sha256)
            return link_program(spec, final_object, f.priv, limit_s);
        write_file(spec.output_program, read_file(kept.program));
        chmod(spec.output_program.c_str(), 0755);
        return nothing_to_run();
    });
    r.reused = true;
    return r;
}

}  // namespace

BuildResult build_submission(const BuildSpec& spec, const TrustedSymbols& trusted) {
    if (spec.rules.allowed_imports.empty())
        throw std::invalid_argument("build_submission: no allowed imports (load grading/allowed-imports.txt)");
    // Line directives would make the compiler's own account of the file untrue: refused unread,
    // whether or not the file was built before.
    const std::vector<Finding> directives = audit_line_directives(read_file(spec.stage_dir + "/" + spec.lab_dir + "/" + spec.topic_file));
    if (!directives.empty()) {
        BuildResult r;
        r.rejected = first_findings(directives);
        return r;
    }
    if (!spec.cache) return build_fresh(spec, trusted);
    if (const std::shared_ptr<const CachedBuild> kept = spec.cache->take(spec.cache_key)) return build_reused(spec, trusted, *kept);
    try {
        return build_fresh(spec, trusted);  // stores what it kept (a compile that worked)
    } catch (...) {
        spec.cache->abandon(spec.cache_key);
        throw;
    }
}

}  // namespace grading
