#include "report.h"

#include <algorithm>
#include <cstdio>

namespace cudalabs {

const char* status_name(Status s) {
    switch (s) {
        case Status::Pass: return "PASS";
        case Status::Fail: return "FAIL";
        case Status::Skip: return "SKIP";
        case Status::Reference: return "REF";
    }
    return "?";
}

bool Report::passed() const {
    return count(Status::Fail) == 0 && count(Status::Pass) > 0;
}

int Report::count(Status s) const {
    return static_cast<int>(std::count_if(rows.begin(), rows.end(),
                                          [s](const Row& r) { return r.status == s; }));
}

std::string format_number(double value, int digits) {
    if (value < 0) return "-";
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", digits, value);
    return buf;
}

std::string json_escape(const std::string& text) {
    std::string out;
    for (unsigned char ch : text) {
        switch (ch) {
            case '"': out += "\\\""; break;
            case '\\': out += "\\\\"; break;
            case '\n': out += "\\n"; break;
            case '\r': out += "\\r"; break;
            case '\t': out += "\\t"; break;
            default:
                if (ch < 0x20) {
                    char buf[8];
                    std::snprintf(buf, sizeof buf, "\\u%04x", ch);
                    out += buf;
                } else {
                    out += static_cast<char>(ch);
                }
        }
    }
    return out;
}

void print_device_header(std::ostream& out, const DeviceSummary& d) {
    out << "Device: " << d.name << " | compute capability " << d.compute_capability << " | "
        << d.sms << " SMs | " << format_number(d.memory_gib, 1) << " GiB | L2 " << d.l2_mib
        << " MiB | measured copy " << format_number(d.copy_gbs, 0) << " GB/s"
        << " | CUDA runtime " << d.cuda_runtime << ", driver " << d.cuda_driver << "\n";
}

namespace {
struct Column {
    std::string title;
    bool right;
    std::vector<std::string> cells;
};

std::string rate_cell(const Row& r) {
    if (r.flops > 0) return format_number(r.gflops(), 1);
    return format_number(r.gbs(), 1);
}

std::string rate_title(const Report& report) {
    bool any_flops = std::any_of(report.rows.begin(), report.rows.end(),
                                 [](const Row& r) { return r.flops > 0; });
    bool any_bytes = std::any_of(report.rows.begin(), report.rows.end(),
                                 [](const Row& r) { return r.flops <= 0 && r.bytes > 0; });
    if (any_flops && any_bytes) return "GFLOP/s|GB/s";
    return any_flops ? "GFLOP/s" : "GB/s";
}
}  // namespace

void print_table(std::ostream& out, const Report& report) {
    std::vector<Column> cols = {{"variant", false, {}}, {"size", true, {}},
                                {"time (ms)", true, {}}, {rate_title(report), true, {}},
                                {"ratio", true, {}},   {"check", false, {}}};
    for (const Row& r : report.rows) {
        cols[0].cells.push_back(r.variant);
        cols[1].cells.push_back(r.size);
        cols[2].cells.push_back(format_number(r.time_ms, r.time_ms >= 100 ? 1 : 4));
        cols[3].cells.push_back(rate_cell(r));
        cols[4].cells.push_back(format_number(r.ratio, 2));
        cols[5].cells.push_back(status_name(r.status));
    }
    std::vector<size_t> width;
    for (const Column& c : cols) {
        size_t w = c.title.size();
        for (const std::string& s : c.cells) w = std::max(w, s.size());
        width.push_back(w);
    }
    auto cell = [&](const std::string& s, size_t i) {
        std::string pad(width[i] - s.size(), ' ');
        return cols[i].right ? pad + s : s + pad;
    };
    std::string line;
    for (size_t i = 0; i < cols.size(); ++i) line += (i ? "  " : "") + cell(cols[i].title, i);
    out << line << "  note\n";
    line.clear();
    for (size_t i = 0; i < cols.size(); ++i) line += (i ? "  " : "") + std::string(width[i], '-');
    out << line << "  ----\n";
    for (size_t r = 0; r < report.rows.size(); ++r) {
        line.clear();
        for (size_t i = 0; i < cols.size(); ++i) line += (i ? "  " : "") + cell(cols[i].cells[r], i);
        out << line << (report.rows[r].note.empty() ? "" : "  " + report.rows[r].note) << "\n";
    }
    if (!report.ratio_to.empty()) out << "(ratio: rate / " << report.ratio_to << ")\n";
}

double copy_ratio(const Row& row, const DeviceSummary& device) {
    return row.gbs() > 0 && device.copy_gbs > 0 ? row.gbs() / device.copy_gbs : -1;
}

double rate_ratio(const Row& row, const Row& other) {
    if (row.rate() > 0 && other.rate() > 0 && (row.flops > 0) == (other.flops > 0)) return row.rate() / other.rate();
    if (row.time_ms > 0 && other.time_ms > 0) return other.time_ms / row.time_ms;
    return -1;
}

const Row* passed_row(const Report& report, const std::string& variant, const std::string& size) {
    for (const Row& r : report.rows)
        if (r.variant == variant && r.size == size && (r.status == Status::Pass || r.status == Status::Reference))
            return &r;
    return nullptr;
}

void evaluate_targets(Report& report) {
    for (Target& t : report.targets) {
        t.measured = false;
        // The variant may be a yardstick itself (a REF row): pinned memory against pageable.
        const Row* row = passed_row(report, t.variant, t.size);
        if (!row) continue;
        double ratio = -1;
        if (t.yardstick == kCopyYardstick) {
            ratio = copy_ratio(*row, report.device);
        } else if (const Row* other = passed_row(report, t.yardstick, t.size)) {
            ratio = rate_ratio(*row, *other);
        }
        if (ratio >= 0) {
            t.ratio = ratio;
            t.measured = true;
            t.met = ratio >= t.min_ratio;
        }
    }
}

void evaluate_contrasts(Report& report) {
    report.contrast_results.clear();
    for (const Contrast& c : report.contrasts)
        for (const Row& r : report.rows) {
            if (r.variant != c.variant) continue;
            const Row* a = passed_row(report, c.variant, r.size);
            const Row* b = passed_row(report, c.over, r.size);
            const double gain = a && b ? rate_ratio(*a, *b) : -1;
            if (gain > 0) report.contrast_results.push_back({c.label, c.variant, c.over, r.size, gain});
        }
}

void print_contrasts(std::ostream& out, const Report& report) {
    std::string label;
    for (const ContrastResult& c : report.contrast_results) {
        if (c.label != label) {
            label = c.label;
            out << label << ": " << c.variant << " over " << c.over << "\n";
        }
        out << "  " << c.size << std::string(c.size.size() < 16 ? 16 - c.size.size() : 1, ' ') << format_number(c.gain, 2) << "x\n";
    }
}

void print_targets(std::ostream& out, const Report& report) {
    for (const Target& t : report.targets) {
        out << "target: " << t.variant << " at " << t.size << " >= " << format_number(t.min_ratio, 2)
            << " x " << t.yardstick << ": ";
        if (!t.measured) out << "not measured in this run\n";
        else out << format_number(t.ratio, 2) << (t.met ? "  MET" : "  MISSED") << "\n";
    }
}

std::string verdict_line(const Report& report) {
    int pass = report.count(Status::Pass), fail = report.count(Status::Fail),
        skip = report.count(Status::Skip);
    std::string counts = std::to_string(pass) + " passed, " + std::to_string(fail) + " failed" +
                         (skip ? ", " + std::to_string(skip) + " skipped" : "");
    if (report.passed()) return "Verdict: PASS (" + counts + ")";
    if (fail == 0) return "Verdict: NOTHING CHECKED (" + counts + ")";
    return "Verdict: FAIL (" + counts + ")";
}

namespace {
std::string json_number(double v) {
    if (v < 0) return "null";
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.6g", v);
    return buf;
}
std::string q(const std::string& s) { return "\"" + json_escape(s) + "\""; }
}  // namespace

void write_json(std::ostream& out, const Report& r) {
    const DeviceSummary& d = r.device;
    out << "{\n  \"lab\": " << q(r.lab) << ",\n  \"program\": " << q(r.program)
        << ",\n  \"mode\": " << q(r.mode) << ",\n  \"date\": " << q(r.date)
        << ",\n  \"seed\": " << r.seed << ",\n  \"ratio_to\": " << q(r.ratio_to)
        << ",\n  \"device\": {\"name\": " << q(d.name) << ", \"compute_capability\": "
        << q(d.compute_capability) << ", \"sms\": " << d.sms
        << ", \"memory_gib\": " << json_number(d.memory_gib) << ", \"l2_mib\": " << d.l2_mib
        << ", \"copy_gbs\": " << json_number(d.copy_gbs) << ", \"cuda_runtime\": "
        << q(d.cuda_runtime) << ", \"cuda_driver\": " << q(d.cuda_driver) << ", \"uuid\": " << q(d.uuid)
        << "},\n  \"results\": [";
    for (size_t i = 0; i < r.rows.size(); ++i) {
        const Row& w = r.rows[i];
        out << (i ? ",\n" : "\n") << "    {\"variant\": " << q(w.variant) << ", \"size\": "
            << q(w.size) << ", \"time_ms\": " << json_number(w.time_ms)
            << ", \"gbs\": " << json_number(w.gbs()) << ", \"gflops\": "
            << json_number(w.gflops()) << ", \"bytes\": " << json_number(w.bytes > 0 ? w.bytes : -1)
            << ", \"flops\": " << json_number(w.flops > 0 ? w.flops : -1) << ", \"ratio\": " << json_number(w.ratio)
            << ", \"roofline_bytes\": " << json_number(w.roofline_bytes > 0 ? w.roofline_bytes : -1)
            << ", \"roofline_flops\": " << json_number(w.roofline_flops > 0 ? w.roofline_flops : -1)
            << ", \"status\": " << q(status_name(w.status)) << ", \"note\": " << q(w.note) << "}";
    }
    out << "\n  ],\n  \"targets\": [";
    for (size_t i = 0; i < r.targets.size(); ++i) {
        const Target& t = r.targets[i];
        out << (i ? ",\n" : "\n") << "    {\"variant\": " << q(t.variant) << ", \"size\": "
            << q(t.size) << ", \"min_ratio\": " << json_number(t.min_ratio)
            << ", \"yardstick\": " << q(t.yardstick) << ", \"ratio\": "
            << (t.measured ? json_number(t.ratio) : "null") << ", \"met\": "
            << (t.measured ? (t.met ? "true" : "false") : "null") << "}";
    }
    out << "\n  ],\n  \"contrasts\": [";
    for (size_t i = 0; i < r.contrast_results.size(); ++i) {
        const ContrastResult& c = r.contrast_results[i];
        out << (i ? ",\n" : "\n") << "    {\"label\": " << q(c.label) << ", \"variant\": " << q(c.variant)
            << ", \"over\": " << q(c.over) << ", \"size\": " << q(c.size) << ", \"gain\": " << json_number(c.gain) << "}";
    }
    out << "\n  ],\n  \"verdict\": " << q(r.passed() ? "PASS" : "FAIL") << "\n}\n";
}

void write_markdown(std::ostream& out, const Report& r) {
    out << "### " << r.lab << " (" << r.program << ", " << r.mode << ")\n\n"
        << "Device: " << r.device.name << " (cc " << r.device.compute_capability
        << "), measured copy " << format_number(r.device.copy_gbs, 0) << " GB/s; " << r.date
        << "\n\n| variant | size | time (ms) | " << rate_title(r) << " | ratio | check |\n"
        << "|---|---:|---:|---:|---:|---|\n";
    for (const Row& w : r.rows)
        out << "| " << w.variant << " | " << w.size << " | "
            << format_number(w.time_ms, w.time_ms >= 100 ? 1 : 4) << " | " << rate_cell(w)
            << " | " << format_number(w.ratio, 2) << " | " << status_name(w.status) << " |\n";
    if (!r.ratio_to.empty()) out << "\nRatio: rate / " << r.ratio_to << ".\n";
    if (!r.targets.empty()) {
        out << "\n| target | needed | measured | |\n|---|---:|---:|---|\n";
        for (const Target& t : r.targets)
            out << "| " << t.variant << " at " << t.size << " vs " << t.yardstick << " | "
                << format_number(t.min_ratio, 2) << " | "
                << (t.measured ? format_number(t.ratio, 2) : "-") << " | "
                << (t.measured ? (t.met ? "met" : "MISSED") : "not run") << " |\n";
    }
    if (!r.contrast_results.empty()) {
        out << "\n| contrast | size | gain |\n|---|---:|---:|\n";
        for (const ContrastResult& c : r.contrast_results)
            out << "| " << c.label << " (" << c.variant << " over " << c.over << ") | " << c.size << " | "
                << format_number(c.gain, 2) << "x |\n";
    }
    out << "\n";
}

}  // namespace cudalabs
