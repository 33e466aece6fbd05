#include <dirent.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

#include "buffers.h"
#include "channel.h"
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
    case_key_ = variant + "_" + format_dims(dims);
    checks_in_case_ = 0;
    sent_.clear();
    reps_in_case_ = 0;
    rep_faults_.clear();
    clear_tracked_outputs();
    if (!grading()) return;
    rep_open_ = false;
    channel::flush_trace();  // kernels of what came before land before the case
    channel::write(channel::RecordType::CaseBegin, channel::case_begin_payload(variant, format_dims(dims)));
}

void RunContext::end_case(Outcome& out) {
    std::vector<std::string> faults = take_buffer_faults();
    if (grading()) {
        faults.insert(faults.end(), rep_faults_.begin(), rep_faults_.end());
        channel::flush_trace();
        if (rep_open_) {  // an error cut the repetition short
            channel::write(channel::RecordType::RepEnd, channel::rep_end_payload(static_cast<uint32_t>(reps_in_case_)));
            rep_open_ = false;
        }
        // A failure the driver found itself (a padding written, a pointer not page-locked, an
        // error mid-case) fails the case in the verifier too: it judges only what it is sent.
        if (!out.failure.empty()) faults.push_back(out.failure);
        for (const std::string& fault : faults) channel::write(channel::RecordType::Fault, channel::fault_payload(fault));
        channel::write(channel::RecordType::CaseEnd, std::string());
        clear_tracked_outputs();
    }
    if (verifying_fresh()) {
        faults.insert(faults.end(), rep_faults_.begin(), rep_faults_.end());
        clear_tracked_outputs();
    }
    if (!options.verify_dir.empty()) {
        std::ifstream f(options.verify_dir + "/" + channel::faults_file_name(case_key_));
        for (std::string line; std::getline(f, line);)
            if (!line.empty()) faults.push_back(line);
    }
    if (faults.empty()) return;
    std::string why = faults.front();
    if (faults.size() > 1) why += " (and " + std::to_string(faults.size() - 1) + " more)";
    record_failure(out, why);
}

void RunContext::note_output(int k, const void* data, size_t bytes, size_t elem_bytes, ElementKind kind, Tolerance tol) {
    if (!grading() && !verifying_fresh()) return;
    sent_.push_back({content_hash(data, bytes), bytes, elem_bytes, kind, tol});
    if (grading()) channel::write_output(static_cast<uint32_t>(k), data, bytes);
}

std::string RunContext::output_path(int k) const {
    return options.verify_dir + "/" + channel::output_file_name(case_key_, static_cast<uint32_t>(k));
}

std::vector<std::pair<int, std::string>> RunContext::timed_output_paths(int k) const {
    // <case>_<k>.rep<r>.bin: the grader stores only the repetitions whose output differed.
    const std::string prefix = case_key_ + "_" + std::to_string(k) + ".rep", suffix = ".bin";
    std::vector<std::pair<int, std::string>> found;
    DIR* dir = opendir(options.verify_dir.c_str());
    if (!dir) return found;
    while (dirent* e = readdir(dir)) {
        const std::string name = e->d_name;
        if (name.size() <= prefix.size() + suffix.size() || name.compare(0, prefix.size(), prefix) != 0 ||
            name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0)
            continue;
        const std::string digits = name.substr(prefix.size(), name.size() - prefix.size() - suffix.size());
        if (digits.size() > 9 || digits.find_first_not_of("0123456789") != std::string::npos) continue;
        found.emplace_back(std::stoi(digits), options.verify_dir + "/" + name);
    }
    closedir(dir);
    std::sort(found.begin(), found.end());
    return found;
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

int run_checked(const Lab& lab, int argc, char** argv) {
    const std::string program = program_name(argc > 0 ? argv[0] : nullptr);
    Options opt;
    std::vector<Variant> variants;
    std::vector<Dims> sizes;
    check_declaration(lab);
    try {
        opt = parse_args(argc, argv);
        enable_buffer_checks(opt.guard_buffers);
        if (opt.channel_fd >= 0) channel::open(opt.channel_fd);
        else channel::disable();
        enable_output_tracking(opt.channel_fd >= 0 || !opt.verify_dir.empty());
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
        variants = selected_variants(lab, opt);
        sizes = !opt.sizes.empty() ? opt.sizes
                : opt.bench        ? lab.bench_sizes
                : opt.quick        ? lab.quick_sizes
                                   : lab.check_sizes;
        for (const Dims& d : sizes)
            if (lab.check_dims) lab.check_dims(d);
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
            double need = lab.device_bytes ? lab.device_bytes(d, opt) : 0;
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
        // Nothing of the lab has run yet: a GPU that is there but cannot be opened (busy, in
        // another process's exclusive use, out of memory) is no usable GPU.
        std::cerr << program << ": no usable CUDA GPU: opening it failed: " << e.what() << "\n";
        return kExitNoGpu;
    }
    // From here on the lab's own code runs: the grader tells a GPU that could not be opened
    // (above, exit 77) from anything later by this record.
    channel::write(channel::RecordType::DeviceReady, std::string());

    report.lab = lab.name;
    report.program = program;
    report.mode = opt.bench ? "bench" : opt.quick ? "quick" : "check";
    report.date = utc_now();
    report.seed = opt.seed;
    report.ratio_to = lab.ratio_to.empty() ? "measured copy bandwidth" : lab.ratio_to;
    if (opt.bench) report.targets = lab.bench_targets;
    report.contrasts = lab.contrasts;

    RunContext ctx(opt, report.device, props, timing_plan(opt), sizes);
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
            // A yardstick is there to be compared with: once every other variant has been left
            // unwritten, timing it again only slows an unfinished starter down.
            if (v.yardstick && nothing_left_to_compare(variants, unwritten_at)) {
                skip_row("no variant left to compare with (all are unwritten)");
                continue;
            }
            if (progress) std::cerr << "  running " << v.name << " at " << format_dims(dims) << "...\r" << std::flush;
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
            report.rows.push_back(make_row(lab, v, dims, out));
            if (out.checked && out.check.never_written()) unwritten_at[v.name] = format_dims(dims);
        }
    }
    if (progress) std::cerr << std::string(60, ' ') << "\r" << std::flush;

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

}  // namespace

int run_lab(const Lab& lab, int argc, char** argv) {
    int code = kExitFail;
    try {
        code = run_checked(lab, argc, argv);
    } catch (const std::exception& e) {
        std::cerr << program_name(argc > 0 ? argv[0] : nullptr) << ": error: " << e.what() << "\n";
    }
    channel::finish();  // RUN_END: the run came to its end (a crash or an exit() leaves it out)
    return code;
}

}  // namespace cudalabs
