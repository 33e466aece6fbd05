#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

#include "buffers.h"
#include "exit_codes.h"
#include "lab.h"
#include "student_source.h"
#include "todo_hint.h"

namespace cudalabs {

RunContext::RunContext(const Options& opts, const DeviceSummary& dev, const cudaDeviceProp& p,
                       int warmup_reps, int timed_reps)
    : options(opts), device(dev), props(p), warmup(warmup_reps), reps(timed_reps) {}

L2Flusher* RunContext::flusher_for(double working_set_bytes) {
    if (working_set_bytes >= 3.0 * props.l2CacheSize) return nullptr;
    if (!flusher_) flusher_ = std::make_unique<L2Flusher>();
    return flusher_.get();
}

void RunContext::begin_case(const std::string& variant, const Dims& dims) {
    case_key_ = variant + "_" + format_dims(dims);
    checks_in_case_ = 0;
}

void RunContext::end_case(Outcome& out) {
    std::vector<std::string> faults = take_buffer_faults();
    const std::string name = case_key_ + "_faults.txt";
    if (!options.emit_dir.empty() && !faults.empty()) {
        std::ofstream f(options.emit_dir + "/" + name);
        for (const std::string& fault : faults) f << fault << "\n";
    }
    if (!options.verify_dir.empty()) {
        std::ifstream f(options.verify_dir + "/" + name);
        for (std::string line; std::getline(f, line);)
            if (!line.empty()) faults.push_back(line);
    }
    if (faults.empty()) return;
    std::string why = faults.front();
    if (faults.size() > 1) why += " (and " + std::to_string(faults.size() - 1) + " more)";
    record_failure(out, why);
}

std::string RunContext::next_output_path() {
    const std::string& dir = !options.emit_dir.empty() ? options.emit_dir : options.verify_dir;
    return dir + "/" + case_key_ + "_" + std::to_string(checks_in_case_++) + ".bin";
}

void RunContext::write_output(const std::string& path, const void* data, size_t bytes) {
    std::ofstream f(path, std::ios::binary);
    f.write(static_cast<const char*>(data), static_cast<std::streamsize>(bytes));
    if (!f) throw std::runtime_error("cannot write " + path);
}

bool RunContext::read_output(const std::string& path, size_t bytes, std::vector<unsigned char>& data) {
    std::ifstream f(path, std::ios::binary | std::ios::ate);
    if (!f || static_cast<size_t>(f.tellg()) != bytes) return false;
    data.resize(bytes);
    f.seekg(0);
    return static_cast<bool>(f.read(reinterpret_cast<char*>(data.data()), static_cast<std::streamsize>(bytes)));
}

void RunContext::record_failure(Outcome& out, const std::string& why) {
    if (out.failure.empty()) out.failure = why;
}

void require_extents(const Dims& dims, size_t min_count, size_t max_count, const std::string& what) {
    if (dims.size() < min_count || dims.size() > max_count)
        throw UsageError("size '" + format_dims(dims) + "' does not fit this lab: expected " + what);
}

void require_at_most(const Dims& dims, long long max_value, const std::string& what) {
    for (long long d : dims)
        if (d > max_value)
            throw UsageError("size '" + format_dims(dims) + "' is too large: " + what);
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
    auto yardstick_of = [&](const std::string& variant) -> std::string {
        for (const Variant& v : lab.variants)
            if (v.name == variant && !v.compare_with.empty()) return v.compare_with;
        for (const Variant& v : lab.variants)
            if (v.yardstick) return v.name;
        return "";
    };
    for (Row& row : report.rows) {
        if (row.rate() <= 0 || row.status == Status::Fail) continue;
        const std::string yardstick = yardstick_of(row.variant);
        if (yardstick.empty()) {
            if (row.flops <= 0 && report.device.copy_gbs > 0)
                row.ratio = row.gbs() / report.device.copy_gbs;
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

int run_checked(const Lab& lab, int argc, char** argv) {
    const std::string program = program_name(argc > 0 ? argv[0] : nullptr);
    Options opt;
    std::vector<Variant> variants;
    std::vector<Dims> sizes;
    try {
        opt = parse_args(argc, argv);
        enable_buffer_checks(opt.guard_buffers);
        if (opt.help) {
            print_help(lab, program);
            return kExitPass;
        }
        if (opt.list) {
            for (const Variant& v : lab.variants) std::cout << v.name << "\n";
            return kExitPass;
        }
        if (!opt.positional.empty() && lab.positional_help.empty())
            throw UsageError("unexpected argument '" + opt.positional[0] + "' (see --help)");
        variants = selected_variants(lab, opt);
        sizes = !opt.sizes.empty() ? opt.sizes
                : opt.bench        ? lab.bench_sizes
                : opt.quick        ? lab.quick_sizes
                                   : lab.check_sizes;
        for (const Dims& d : sizes)
            if (lab.check_dims) lab.check_dims(d);
        if (lab.configure) lab.configure(opt);
    } catch (const UsageError& e) {
        std::cerr << program << ": error: " << e.what() << "\n";
        return kExitUsage;
    }

    cudaDeviceProp props;
    Report report;
    try {
        report.device = open_device(opt.device, &props);
        size_t free_bytes = free_device_memory();
        for (const Dims& d : sizes) {
            double need = lab.device_bytes ? lab.device_bytes(d) : 0;
            if (need > 0.95 * static_cast<double>(free_bytes))
                throw UsageError("size " + format_dims(d) + " needs " + human_bytes(need) +
                                 " of device memory, but " + report.device.name + " has " +
                                 human_bytes(static_cast<double>(free_bytes)) + " free");
        }
        size_t copy_bytes = std::min<size_t>(size_t(256) << 20, free_bytes / 8);
        report.device.copy_gbs = measure_copy_gbs(copy_bytes, opt.quick ? 2 : 10);
    } catch (const NoGpuError& e) {
        std::cerr << program << ": " << e.what() << "\n";
        return kExitNoGpu;
    } catch (const UsageError& e) {
        std::cerr << program << ": error: " << e.what() << "\n";
        return kExitUsage;
    } catch (const CudaError& e) {
        std::cerr << program << ": " << e.what() << "\n";
        return kExitFail;
    }

    report.lab = lab.name;
    report.program = program;
    report.mode = opt.bench ? "bench" : opt.quick ? "quick" : "check";
    report.date = utc_now();
    report.seed = opt.seed;
    report.ratio_to = lab.ratio_to.empty() ? "measured copy bandwidth" : lab.ratio_to;
    if (opt.bench) report.targets = lab.bench_targets;

    int reps = opt.reps ? opt.reps : opt.bench ? 20 : opt.quick ? 1 : 5;
    int warmup = opt.quick ? 0 : opt.bench ? 3 : 1;
    RunContext ctx(opt, report.device, props, warmup, reps);
    bool context_lost = false;
    // A variant whose output was never written at one size is not run at the others: one
    // pointer to its TODO is enough.
    std::map<std::string, std::string> unwritten_at;
    bool progress = isatty(STDERR_FILENO);

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

    for (const Dims& dims : sizes) {
        for (const Variant& v : variants) {
            Outcome out;
            auto skip_row = [&](const std::string& why) {
                Row row;
                row.variant = v.name;
                row.size = format_dims(dims);
                row.status = Status::Skip;
                row.note = "not run: " + why;
                report.rows.push_back(row);
            };
            if (context_lost) {
                skip_row("the GPU context was lost after an earlier error");
                continue;
            }
            if (unwritten_at.count(v.name)) {
                skip_row("output never written at size " + unwritten_at[v.name]);
                continue;
            }
            if (progress) std::cerr << "  running " << v.name << " at " << format_dims(dims) << "...\r" << std::flush;
            try {
                ctx.begin_case(v.name, dims);
                out = lab.run(v.name, dims, ctx);
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
            report.rows.push_back(make_row(lab, v, dims, out));
            if (out.checked && out.check.never_written()) unwritten_at[v.name] = format_dims(dims);
        }
    }
    if (progress) std::cerr << std::string(60, ' ') << "\r" << std::flush;

    fill_ratios(report, lab);
    evaluate_targets(report);
    print_table(std::cout, report);
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

}  // namespace

int run_lab(const Lab& lab, int argc, char** argv) {
    try {
        return run_checked(lab, argc, argv);
    } catch (const std::exception& e) {
        std::cerr << program_name(argc > 0 ? argv[0] : nullptr) << ": error: " << e.what() << "\n";
        return kExitFail;
    }
}

}  // namespace cudalabs
