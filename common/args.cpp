#include "args.h"
#include "run_hooks.h"
#include "timing_plan.h"

#include <cctype>
#include <climits>
#include <sstream>

namespace cudalabs {

long long parse_positive(const std::string& text, const std::string& what, long long max_value) {
    if (text.empty()) throw UsageError(what + " is empty: expected a positive whole number");
    if (text[0] == '-')
        throw UsageError(what + " must be positive, got '" + text + "'");
    long long value = 0;
    for (char ch : text) {
        if (!std::isdigit(static_cast<unsigned char>(ch)))
            throw UsageError(what + " must be a positive whole number, got '" + text + "'");
        int digit = ch - '0';
        if (value > (LLONG_MAX - digit) / 10)
            throw UsageError(what + " is too large: '" + text + "'");
        value = value * 10 + digit;
    }
    if (value == 0) throw UsageError(what + " must be at least 1, got '" + text + "'");
    if (value > max_value)
        throw UsageError(what + " is too large: " + text + " (at most " +
                         std::to_string(max_value) + ")");
    return value;
}

long long parse_count(const std::string& text, const std::string& what, long long max_value) {
    if (!text.empty() && text.find_first_not_of('0') == std::string::npos) return 0;
    return parse_positive(text, what, max_value);
}

Dims parse_dims(const std::string& text) {
    Dims dims;
    std::string part;
    std::istringstream in(text);
    while (std::getline(in, part, 'x')) dims.push_back(parse_positive(part, "size '" + text + "'"));
    if (text.empty() || text.back() == 'x' || dims.empty())
        throw UsageError("size '" + text + "' is incomplete: write N, NxM or NxMxK");
    if (dims.size() > 3)
        throw UsageError("size '" + text + "' has more than 3 extents");
    return dims;
}

std::vector<Dims> parse_size_list(const std::string& text) {
    std::vector<Dims> sizes;
    std::string part;
    std::istringstream in(text);
    while (std::getline(in, part, ',')) sizes.push_back(parse_dims(part));
    if (sizes.empty() || text.back() == ',')
        throw UsageError("size list '" + text + "' is incomplete");
    return sizes;
}

std::string format_dims(const Dims& dims) {
    std::string out;
    for (size_t i = 0; i < dims.size(); ++i) {
        if (i) out += 'x';
        out += std::to_string(dims[i]);
    }
    return out;
}

std::string common_options_help() {
    return "Options:\n"
           "  -h, --help          show this help and exit\n"
           "  -n, --size LIST     problem sizes, comma-separated (N, NxM or NxMxK); default: the\n"
           "                      lab's correctness sizes\n"
           "  -v, --variant LIST  run only these variants (comma-separated); see --list;\n"
           "                      NAME@SEED gives that variant its own seed\n"
           "      --list          list the variants and exit\n"
           "      --describe      print the lab as JSON (variants, sizes, targets) and exit\n"
           "      --bench         run the lab's benchmark sizes instead of its correctness sizes\n"
           "      --quick         tiny sizes and one repetition (for compute-sanitizer)\n"
           "      --reps N        time every case N times (median reported); default: until\n"
           "                      " + std::to_string(static_cast<int>(kDefaultBudgetMs)) +
           " ms have passed, " + std::to_string(kDefaultMinReps) + " to " +
           std::to_string(kDefaultMaxReps) + " times (--bench: 20); 0: check every\n"
           "                      case, time none (a sanitizer watches each launch)\n"
           "      --seed N        seed for the random inputs (default 2026)\n"
           "      --device N      CUDA device index (default 0)\n"
           "      --json FILE     also write the results as JSON\n"
           "      --markdown FILE also write the results as a Markdown table\n"
           "      --guard-buffers guard zones around device buffers (out-of-bounds writes; an\n"
           "                      access further past the end faults) and a check that\n"
           "                      inputs were not changed\n"
           "Exit codes: 0 all passed, 1 a check failed, 2 bad command line, 77 no usable GPU.\n";
}

namespace {
std::vector<std::string> split_names(const std::string& text, const std::string& flag) {
    std::vector<std::string> names;
    std::string part;
    std::istringstream in(text);
    while (std::getline(in, part, ',')) {
        if (part.empty()) throw UsageError(flag + " has an empty name in '" + text + "'");
        names.push_back(part);
    }
    if (names.empty()) throw UsageError(flag + " needs at least one name");
    return names;
}
// NAME, or NAME@SEED: the variant with inputs of its own seed (one seed a variant).
void add_variant(Options& opt, const std::string& text, const std::string& flag) {
    const size_t at = text.find('@');
    const std::string name = text.substr(0, at);
    if (name.empty()) throw UsageError(flag + " has an empty name in '" + text + "'");
    if (at != std::string::npos) {
        const uint64_t seed = static_cast<uint64_t>(parse_positive(text.substr(at + 1), flag + " " + name + "@SEED"));
        auto [it, added] = opt.variant_seeds.emplace(name, seed);
        if (!added && it->second != seed) throw UsageError(flag + " gives " + name + " two seeds");
    }
    opt.variants.push_back(name);
}
}  // namespace

uint64_t Options::seed_of(const std::string& variant) const {
    auto it = variant_seeds.find(variant);
    return it == variant_seeds.end() ? seed : it->second;
}

Options parse_args(int argc, const char* const* argv) {
    Options opt;
    for (int i = 1; i < argc; ++i) {
        std::string arg = argv[i];
        std::string value;
        bool has_inline_value = false;
        if (arg.rfind("--", 0) == 0) {
            size_t eq = arg.find('=');
            if (eq != std::string::npos) {
                value = arg.substr(eq + 1);
                arg = arg.substr(0, eq);
                has_inline_value = true;
            }
        }
        auto next = [&](const std::string& flag) -> std::string {
            if (has_inline_value) return value;
            if (i + 1 >= argc) throw UsageError(flag + " needs a value");
            return argv[++i];
        };
        auto no_value = [&](const std::string& flag) {
            if (has_inline_value) throw UsageError(flag + " takes no value");
        };
        if (arg == "-h" || arg == "--help") { no_value(arg); opt.help = true; }
        else if (arg == "--list") { no_value(arg); opt.list = true; }
        else if (arg == "--describe") { no_value(arg); opt.describe = true; }
        else if (arg == "--bench") { no_value(arg); opt.bench = true; }
        else if (arg == "--quick") { no_value(arg); opt.quick = true; }
        else if (arg == "-n" || arg == "--size") {
            auto more = parse_size_list(next(arg));
            opt.sizes.insert(opt.sizes.end(), more.begin(), more.end());
        }
        else if (arg == "-v" || arg == "--variant") {
            for (const std::string& name : split_names(next(arg), arg)) add_variant(opt, name, arg);
        }
        else if (arg == "--reps") opt.reps = static_cast<int>(parse_count(next(arg), "--reps", 100000));
        else if (arg == "--seed") opt.seed = static_cast<uint64_t>(parse_positive(next(arg), "--seed"));
        else if (arg == "--device") {
            // Device 0 is valid, so this one accepts zero.
            std::string text = next(arg);
            opt.device = text == "0" ? 0 : static_cast<int>(parse_positive(text, "--device", 1023));
        }
        else if (arg == "--json") { opt.json_path = next(arg); if (opt.json_path.empty()) throw UsageError("--json needs a file name"); }
        else if (arg == "--markdown") { opt.markdown_path = next(arg); if (opt.markdown_path.empty()) throw UsageError("--markdown needs a file name"); }
        else if (arg == "--guard-buffers") opt.guard_buffers = true;
        else if (arg.size() > 1 && arg[0] == '-' && !std::isdigit(static_cast<unsigned char>(arg[1]))) {
            if (!run_hooks().take_option(arg, [&] { return next(arg); }))
                throw UsageError("unknown option '" + arg + "' (see --help)");
        }
        else opt.positional.push_back(arg);
    }
    run_hooks().options_read();
    if (opt.bench && opt.quick) throw UsageError("--bench and --quick cannot be combined");
    if (!opt.sizes.empty() && (opt.bench || opt.quick))
        throw UsageError("--size cannot be combined with --bench or --quick");
    return opt;
}

TimingPlan timing_plan(const Options& opt) {
    TimingPlan plan;
    plan.warmup = opt.quick || opt.reps == 0 ? 0 : opt.bench ? 3 : 1;
    if (opt.reps >= 0) plan.reps = opt.reps;
    else if (opt.bench) plan.reps = 20;
    else if (opt.quick) plan.reps = 1;
    else {
        plan.reps = kDefaultMaxReps;
        plan.min_reps = kDefaultMinReps;
        plan.budget_ms = kDefaultBudgetMs;
    }
    return plan;
}

}  // namespace cudalabs
