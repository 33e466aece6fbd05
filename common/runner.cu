#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>

#include "buffers.h"
#include "exit_codes.h"
#include "lab.h"
#include "student_source.h"
#include "todo_hint.h"

namespace cudalabs {

RunContext::RunContext(const Options& opts, const DeviceSummary& dev, const cudaDeviceProp& p,
                       const TimingPlan& plan, const std::vector<Dims>& run_sizes)
    : options(opts), device(dev), props(p), timing(plan), sizes(run_sizes) {}

L2Flusher* RunContext::flusher_for(double working_set_bytes) {
    if (working_set_bytes >= 3.0 * props.l2CacheSize) return nullptr;
    if (!flusher_) flusher_ = std::make_unique<L2Flusher>();
    return flusher_.get();
}

void RunContext::begin_case(const std::string& variant, const Dims& dims) {
    checks_in_case_ = 0;
    case_seed_ = options.seed_of(variant);
    run_hooks().case_begun(variant, dims);
}

void RunContext::end_case(Outcome& out) {
    std::vector<std::string> faults = take_buffer_faults();
    run_hooks().case_ended(out.failure, faults);
    if (faults.empty()) return;
    std::string why = faults.front();
    if (faults.size() > 1) why += " (and " + std::to_string(faults.size() - 1) + " more)";
    record_failure(out, why);
}

void RunContext::keep_check(Outcome& out, const CheckResult& result, const std::vector<size_t>& shape) {
    if (!out.checked || (out.check.ok() && !result.ok())) {
        out.check = result;
        out.shape = shape;
    }
    out.checked = true;
}

void RunContext::record_failure(Outcome& out, const std::string& why) {
    if (out.failure.empty()) out.failure = why;
}

namespace {

std::string program_name(const char* argv0) {
    std::string name = argv0 ? argv0 : "lab";
    size_t slash = name.rfind('/');
    return slash == std::string::npos ? name : name.substr(slash + 1);
}

std::string utc_now() {
    std::time_t now = std::time(nullptr);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
    return buf;
}

void print_help(const Lab& lab, const std::string& program) {
    std::cout << program << ": lab " << lab.number << " -- " << lab.title << "\n\n"
              << "Usage: " << program << " [options]"
              << (lab.positional_help.empty() ? "" : " " + lab.positional_help) << "\n\n"
              << "Sizes: " << lab.size_help << "\n"
              << "  default sizes: ";
    for (size_t i = 0; i < lab.check_sizes.size(); ++i)
        std::cout << (i ? ", " : "") << format_dims(lab.check_sizes[i]);
    std::cout << "\n  --bench sizes: ";
    for (size_t i = 0; i < lab.bench_sizes.size(); ++i)
        std::cout << (i ? ", " : "") << format_dims(lab.bench_sizes[i]);
    std::cout << "\n\nVariants:\n";
    for (const Variant& v : lab.variants)
        std::cout << "  " << v.name << std::string(v.name.size() < 14 ? 14 - v.name.size() : 1, ' ')
                  << v.description << (v.yardstick ? " (yardstick)" : "") << "\n";
    std::cout << "\n" << common_options_help();
}

// --describe: what the lab declares, for the tools that must agree with it (the rubrics'
// sizes and variants are checked against it).
void print_description(std::ostream& out, const Lab& lab) {
    auto q = [](const std::string& s) { return "\"" + json_escape(s) + "\""; };
    auto sizes = [&](const std::vector<Dims>& list) {
        std::string text = "[";
        for (size_t i = 0; i < list.size(); ++i) text += (i ? ", " : "") + q(format_dims(list[i]));
        return text + "]";
    };
    out << "{\n  \"lab\": " << q(lab.number) << ",\n  \"name\": " << q(lab.name) << ",\n  \"title\": "
        << q(lab.title) << ",\n  \"variants\": [";
    for (size_t i = 0; i < lab.variants.size(); ++i) {
        const Variant& v = lab.variants[i];
        out << (i ? ",\n" : "\n") << "    {\"name\": " << q(v.name) << ", \"description\": " << q(v.description)
            << ", \"yardstick\": " << (v.yardstick ? "true" : "false") << ", \"compare_with\": " << q(v.compare_with)
            << ", \"element\": " << q(v.element) << "}";
    }
    out << "\n  ],\n  \"check_sizes\": " << sizes(lab.check_sizes) << ",\n  \"bench_sizes\": "
        << sizes(lab.bench_sizes) << ",\n  \"quick_sizes\": " << sizes(lab.quick_sizes)
        << ",\n  \"ratio_to\": " << q(lab.ratio_to) << ",\n  \"targets\": [";
    for (size_t i = 0; i < lab.bench_targets.size(); ++i) {
        const Target& t = lab.bench_targets[i];
        out << (i ? ",\n" : "\n") << "    {\"variant\": " << q(t.variant) << ", \"size\": " << q(t.size)
            << ", \"min_ratio\": " << t.min_ratio << ", \"against\": " << q(t.yardstick) << "}";
    }
    out << (lab.bench_targets.empty() ? "]" : "\n  ]") << ",\n  \"contrasts\": [";
    for (size_t i = 0; i < lab.contrasts.size(); ++i) {
        const Contrast& c = lab.contrasts[i];
        out << (i ? ",\n" : "\n") << "    {\"variant\": " << q(c.variant) << ", \"over\": " << q(c.over)
            << ", \"label\": " << q(c.label) << "}";
    }
    out << (lab.contrasts.empty() ? "]\n}\n" : "\n  ]\n}\n");
}

std::vector<Variant> selected_variants(const Lab& lab, const Options& opt) {
    std::vector<Variant> chosen;
    for (const std::string& name : opt.variants) {
        auto it = std::find_if(lab.variants.begin(), lab.variants.end(),
                               [&](const Variant& v) { return v.name == name; });
        if (it == lab.variants.end()) {
            std::string known;
            for (const Variant& v : lab.variants) known += (known.empty() ? "" : ", ") + v.name;
            throw UsageError("unknown variant '" + name + "' (this lab has: " + known + ")");
        }
    }
    // Keep the lab's order; yardsticks first, so the others can be compared with them.
    for (int pass = 0; pass < 2; ++pass)
        for (const Variant& v : lab.variants) {
            bool wanted = opt.variants.empty() ||
                          std::find(opt.variants.begin(), opt.variants.end(), v.name) != opt.variants.end();
            if (wanted && v.yardstick == (pass == 0)) chosen.push_back(v);
        }
    return chosen;
}

// True when the run has variants besides yardsticks and every one of them is in `unwritten`.
bool nothing_left_to_compare(const std::vector<Variant>& variants,
                             const std::map<std::string, std::string>& unwritten) {
    bool others = false;
    for (const Variant& v : variants) {
        if (v.yardstick) continue;
        if (!unwritten.count(v.name)) return false;
        others = true;
    }
    return others;
}

std::string human_bytes(double bytes) {
    char buf[32];
    if (bytes >= 1073741824.0) std::snprintf(buf, sizeof buf, "%.1f GiB", bytes / 1073741824.0);
    else std::snprintf(buf, sizeof buf, "%.1f MiB", bytes / 1048576.0);
    return buf;
}

// Builds the table row of one case from what the lab's run() returned.
Row make_row(const Lab& lab, const Variant& v, const Dims& dims, const Outcome& out) {
    Row row;
    row.variant = v.name;
    row.size = format_dims(dims);
    row.time_ms = out.time_ms;
    row.bytes = out.bytes;
    row.flops = out.flops;
    row.roofline_bytes = out.roofline_bytes;
    row.roofline_flops = out.roofline_flops;
    row.note = out.note;
    if (out.skipped) {
        row.status = Status::Skip;
        return row;
    }
    std::string problem = out.failure;
    if (problem.empty() && out.checked && !out.check.ok()) {
        problem = out.check.never_written()
                      ? "output never written: did you launch the kernel and store the result?"
                      : describe_failure(out.check, out.shape);
    }
    if (problem.empty() && !out.checked && !v.yardstick)
        problem = "internal: the lab did not check this variant";
    if (!problem.empty()) {
        std::string hint = todo_hint(kStudentSourcePath, kStudentSourceDisplay,
                                     "lab" + lab.number, v.name);
        row.status = Status::Fail;
        row.note = problem + (hint.empty() ? "" : "; " + hint) +
                   (row.note.empty() ? "" : " [" + row.note + "]");
    } else {
        row.status = v.yardstick ? Status::Reference : Status::Pass;
    }
    return row;
}

void fill_ratios(Report& report, const Lab& lab) {
    // A variant is compared with its compare_with, else with the lab's first yardstick; a
    // yardstick without a compare_with is its own (1.00 by definition).
    auto yardstick_of = [&](const std::string& variant) -> std::string {
        for (const Variant& v : lab.variants)
            if (v.name == variant && !v.compare_with.empty()) return v.compare_with;
        for (const Variant& v : lab.variants)
            if (v.name == variant && v.yardstick) return v.name;
        for (const Variant& v : lab.variants)
            if (v.yardstick) return v.name;
        return "";
    };
    for (Row& row : report.rows) {
        if (row.rate() <= 0 || row.status == Status::Fail) continue;
        const std::string yardstick = yardstick_of(row.variant);
        if (yardstick.empty()) {
            if (row.flops <= 0) row.ratio = copy_ratio(row, report.device);
            continue;
        }
        for (const Row& ref : report.rows) {
            if (ref.variant == yardstick && ref.size == row.size && ref.rate() > 0 &&
                (ref.flops > 0) == (row.flops > 0)) {
                row.ratio = row.rate() / ref.rate();
                break;
            }
        }
    }
}

// A lab whose targets or contrasts name what it does not have is a mistake in its driver: said
// at once, before anything runs, instead of a target that is never measured.
void check_declaration(const Lab& lab) {
    auto has = [&](const std::string& name) {
        return std::any_of(lab.variants.begin(), lab.variants.end(), [&](const Variant& v) { return v.name == name; });
    };
    for (const Target& t : lab.bench_targets) {
        if (!has(t.variant)) throw std::logic_error("lab " + lab.number + ": a target names no variant of the lab: '" + t.variant + "'");
        if (t.yardstick != kCopyYardstick && !has(t.yardstick))
            throw std::logic_error("lab " + lab.number + ": the target of " + t.variant + " is against '" + t.yardstick +
                                   "', which is neither '" + kCopyYardstick + "' nor a variant of the lab");
    }
    for (const Contrast& c : lab.contrasts)
        if (!has(c.variant) || !has(c.over))
            throw std::logic_error("lab " + lab.number + ": the contrast '" + c.label + "' names a variant the lab does not have");
    for (const Variant& v : lab.variants)
        if (!v.run) throw std::logic_error("lab " + lab.number + ": variant " + v.name + " has nothing to run");
}

// What the command line asks for: the options, the variants in the order they run, the sizes.
struct RunPlan {
    Options opt;
    std::vector<Variant> variants;
    std::vector<Dims> sizes;
};

// Reads the command line into `plan`. Returns the exit code when the run ends here (--help,
// --list, --describe, a bad command line), nothing when it goes on.
std::optional<int> read_command_line(const Lab& lab, int argc, char** argv, const std::string& program, RunPlan& plan) {
    Options& opt = plan.opt;
    try {
        // The installed hooks may hand over other arguments than the command line's.
        const std::vector<std::string> args = run_hooks().arguments(std::vector<std::string>(argv + std::min(argc, 1), argv + argc));
        std::vector<const char*> words = {argc > 0 ? argv[0] : "lab"};
        for (const std::string& a : args) words.push_back(a.c_str());
        opt = parse_args(static_cast<int>(words.size()), words.data());
        enable_buffer_checks(opt.guard_buffers);
        run_hooks().run_started();
        if (opt.help) {
            print_help(lab, program);
            return kExitPass;
        }
        if (opt.list) {
            for (const Variant& v : lab.variants) std::cout << v.name << "\n";
            return kExitPass;
        }
        if (opt.describe) {
            print_description(std::cout, lab);
            return kExitPass;
        }
        if (!opt.positional.empty()) {
            if (!lab.size_from_positional) throw UsageError("unexpected argument '" + opt.positional[0] + "' (see --help)");
            if (!opt.sizes.empty() || opt.bench || opt.quick)
                throw UsageError("the arguments " + lab.positional_help + " cannot be combined with --size, --bench or --quick");
            opt.sizes = {lab.size_from_positional(opt.positional)};
        }
        plan.variants = selected_variants(lab, opt);
        plan.sizes = !opt.sizes.empty() ? opt.sizes
                     : opt.bench        ? lab.bench_sizes
                     : opt.quick        ? lab.quick_sizes
                                        : lab.check_sizes;
        for (const Dims& d : plan.sizes)
            if (lab.check_dims) lab.check_dims(d);
    } catch (const UsageError& e) {
        std::cerr << program << ": error: " << e.what() << "\n";
        return kExitUsage;
    }
    return std::nullopt;
}

// Before anything opens the GPU: one hardware work queue a context (CUDA_DEVICE_MAX_CONNECTIONS)
// unless the lab runs streams side by side. Work on one stream needs no more, and a context with
// one queue is made and destroyed in about a third of the time when many programs open GPUs at
// once (bench/results/*.starts.md). Set here, it is the same in every run of the lab: the
// student's own, and every run a grader makes.
void use_work_queues(const Lab& lab) {
    if (!lab.concurrent_streams) setenv("CUDA_DEVICE_MAX_CONNECTIONS", "1", 1);
}

// Opens the GPU, checks that every size fits in its free memory and measures its copy
// bandwidth. Returns the exit code when the run ends here (no usable GPU, a size too large).
std::optional<int> open_gpu(const Lab& lab, const RunPlan& plan, const std::string& program, Report& report,
                            cudaDeviceProp& props) {
    try {
        report.device = open_device(plan.opt.device, &props);
        size_t free_bytes = free_device_memory();
        for (const Dims& d : plan.sizes) {
            double need = lab.device_bytes ? lab.device_bytes(d, plan.opt) : 0;
            if (need > 0.95 * static_cast<double>(free_bytes))
                throw UsageError("size " + format_dims(d) + " needs " + human_bytes(need) +
                                 " of device memory, but " + report.device.name + " has " +
                                 human_bytes(static_cast<double>(free_bytes)) + " free");
        }
        size_t copy_bytes = std::min<size_t>(size_t(256) << 20, free_bytes / 8);
        report.device.copy_gbs = measure_copy_gbs(copy_bytes, plan.opt.quick ? 2 : 10);
    } catch (const NoGpuError& e) {
        std::cerr << program << ": " << e.what() << "\n";
        return kExitNoGpu;
    } catch (const UsageError& e) {
        std::cerr << program << ": error: " << e.what() << "\n";
        return kExitUsage;
    } catch (const CudaError& e) {
        // Nothing of the lab has run yet: a GPU that is there but cannot be opened (busy, in
        // another process's exclusive use, out of memory) is no usable GPU.
        std::cerr << program << ": no usable CUDA GPU: opening it failed: " << e.what() << "\n";
        return kExitNoGpu;
    }
    run_hooks().device_ready();
    return std::nullopt;
}

// The report's header: what ran, where, when and how.
void describe_run(const Lab& lab, const Options& opt, const std::string& program, Report& report) {
    report.lab = lab.name;
    report.program = program;
    report.mode = opt.bench ? "bench" : opt.quick ? "quick" : "check";
    report.date = utc_now();
    report.seed = opt.seed;
    report.ratio_to = lab.ratio_to.empty() ? "measured copy bandwidth" : lab.ratio_to;
    if (opt.bench) report.targets = lab.bench_targets;
    report.contrasts = lab.contrasts;
}

// Runs one variant at one size as a case: its outcome, whatever it threw.
Outcome run_case(const Variant& v, const Dims& dims, RunContext& ctx, bool& context_lost) {
    Outcome out;
    try {
        ctx.begin_case(v.name, dims);
        out = v.run(dims, ctx);
        CUDA_CHECK(cudaDeviceSynchronize());
    } catch (const CudaError& e) {
        out = Outcome();
        out.failure = e.what();
        context_lost = e.sticky;
    } catch (const std::bad_alloc&) {
        out = Outcome();
        out.failure = "out of host memory for this size";
    } catch (const std::exception& e) {
        out = Outcome();
        out.failure = e.what();
    }
    ctx.end_case(out);
    return out;
}

// Why a variant is not run at a size, or "" when it is.
std::string reason_not_to_run(const Variant& v, const std::vector<Variant>& variants, bool context_lost,
                              const std::map<std::string, std::string>& unwritten_at) {
    if (context_lost) return "the GPU context was lost after an earlier error";
    auto unwritten = unwritten_at.find(v.name);
    if (unwritten != unwritten_at.end()) return "output never written at size " + unwritten->second;
    // A yardstick is there to be compared with: once every other variant has been left
    // unwritten, timing it again only slows an unfinished starter down.
    if (v.yardstick && nothing_left_to_compare(variants, unwritten_at))
        return "no variant left to compare with (all are unwritten)";
    return "";
}

// Every case of the plan, a row each. Returns whether the GPU context was lost.
bool run_cases(const Lab& lab, const RunPlan& plan, RunContext& ctx, Report& report) {
    bool context_lost = false;
    // A variant whose output was never written at one size is not run at the others: one
    // pointer to its TODO is enough.
    std::map<std::string, std::string> unwritten_at;
    const bool progress = isatty(STDERR_FILENO);
    for (const Dims& dims : plan.sizes) {
        for (const Variant& v : plan.variants) {
            const std::string why_not = reason_not_to_run(v, plan.variants, context_lost, unwritten_at);
            if (!why_not.empty()) {
                Row row;
                row.variant = v.name;
                row.size = format_dims(dims);
                row.status = Status::Skip;
                row.note = "not run: " + why_not;
                report.rows.push_back(row);
                continue;
            }
            if (progress) std::cerr << "  running " << v.name << " at " << format_dims(dims) << "...\r" << std::flush;
            const Outcome out = run_case(v, dims, ctx, context_lost);
            report.rows.push_back(make_row(lab, v, dims, out));
            if (out.checked && out.check.never_written()) unwritten_at[v.name] = format_dims(dims);
        }
    }
    if (progress) std::cerr << std::string(60, ' ') << "\r" << std::flush;
    return context_lost;
}

// The table, the verdict and the files asked for. Returns the exit code.
int report_results(const Lab& lab, const Options& opt, const std::string& program, bool context_lost, Report& report) {
    fill_ratios(report, lab);
    evaluate_targets(report);
    evaluate_contrasts(report);
    print_table(std::cout, report);
    if (!report.contrast_results.empty()) {
        std::cout << "\n";
        print_contrasts(std::cout, report);
    }
    if (!report.targets.empty()) print_targets(std::cout, report);
    std::cout << verdict_line(report) << "\n";
    if (lab.epilogue) lab.epilogue(report, std::cout);
    if (context_lost)
        std::cout << "The GPU context was lost (see the first FAIL): fix that variant first; "
                     "compute-sanitizer ./" << program << " shows the faulting line.\n";

    auto write_file = [&](const std::string& path, void (*writer)(std::ostream&, const Report&)) {
        if (path.empty()) return true;
        std::ofstream f(path);
        if (f) writer(f, report);
        if (!f) {
            std::cerr << program << ": error: cannot write " << path << "\n";
            return false;
        }
        return true;
    };
    bool written = write_file(opt.json_path, write_json) && write_file(opt.markdown_path, write_markdown);
    if (!written) return kExitFail;
    return report.passed() ? kExitPass : kExitFail;
}

int run_checked(const Lab& lab, int argc, char** argv) {
    const std::string program = program_name(argc > 0 ? argv[0] : nullptr);
    check_declaration(lab);
    use_work_queues(lab);
    RunPlan plan;
    if (std::optional<int> done = read_command_line(lab, argc, argv, program, plan)) return *done;
    cudaDeviceProp props;
    Report report;
    if (std::optional<int> done = open_gpu(lab, plan, program, report, props)) return *done;
    describe_run(lab, plan.opt, program, report);

    RunContext ctx(plan.opt, report.device, props, timing_plan(plan.opt), plan.sizes);
    std::cout << program << ": lab " << lab.number << " -- " << lab.title << "\n";
    print_device_header(std::cout, report.device);
    std::cout << "\n" << std::flush;
    if (lab.prologue) {
        try {
            lab.prologue(ctx, std::cout);
        } catch (const CudaError& e) {
            std::cout << "FAIL: " << e.what() << "\n";
            return kExitFail;
        }
    }
    const bool context_lost = run_cases(lab, plan, ctx, report);
    return report_results(lab, plan.opt, program, context_lost, report);
}

// One run of the lab: its exit code, whatever it threw.
int run_once(const Lab& lab, int argc, char** argv) {
    int code = kExitFail;
    try {
        code = run_checked(lab, argc, argv);
    } catch (const std::exception& e) {
        std::cerr << program_name(argc > 0 ? argv[0] : nullptr) << ": error: " << e.what() << "\n";
    }
    run_hooks().run_finished();
    return code;
}

}  // namespace

int run_lab(const Lab& lab, int argc, char** argv) {
    int code = run_once(lab, argc, argv);
    while (run_hooks().run_again(code)) code = run_once(lab, argc, argv);
    return code;
}

}  // namespace cudalabs
