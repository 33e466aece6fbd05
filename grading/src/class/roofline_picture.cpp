#include "class/roofline_picture.h"

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "isolation/isolation.h"
#include "util/files.h"
#include "util/text.h"

namespace grading {

using nlohmann::json;

namespace {

// How far a visibility keeps a test from the student: a picture of several tests is shown no
// sooner than the latest of them.
int restriction(Visibility v) {
    switch (v) {
        case Visibility::Visible: return 0;
        case Visibility::AfterDueDate: return 1;
        case Visibility::AfterPublished: return 2;
        case Visibility::Hidden: return 3;
    }
    return 3;
}

std::string first_line(const std::string& text) { return trim(text.substr(0, text.find('\n'))); }

}  // namespace

std::string base64(const std::string& bytes) {
    static const char* digits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    size_t i = 0;
    for (; i + 2 < bytes.size(); i += 3) {
        const unsigned v = (static_cast<unsigned char>(bytes[i]) << 16) | (static_cast<unsigned char>(bytes[i + 1]) << 8) |
                           static_cast<unsigned char>(bytes[i + 2]);
        for (int shift : {18, 12, 6, 0}) out += digits[(v >> shift) & 63];
    }
    if (i < bytes.size()) {
        const bool two = i + 1 < bytes.size();
        const unsigned v = (static_cast<unsigned char>(bytes[i]) << 16) | (two ? static_cast<unsigned char>(bytes[i + 1]) << 8 : 0);
        out += digits[(v >> 18) & 63];
        out += digits[(v >> 12) & 63];
        out += two ? digits[(v >> 6) & 63] : '=';
        out += '=';
    }
    return out;
}

RooflineDrawer scorecard_drawer(const std::string& root, const std::string& scratch) {
    return [root, scratch](const std::string& figures, const std::string& svg) -> std::string {
        const std::string tool = root + "/tools/scorecard.py";
        if (!exists(tool)) return "this grader's tree has no tools/scorecard.py";
        const RunResult r = run_trusted({"python3", tool, "--grader-figures", figures, "--out", svg}, root, 60, scratch);
        if (!r.started || r.exit_code == 127)
            return "python3 could not be run" + (r.error.empty() ? std::string() : " (" + r.error + ")") +
                   ": install python3 on the grading machine for the picture";
        if (!r.ok()) return "tools/scorecard.py failed (" + r.describe() + "): " + first_line(r.err);
        return "";
    };
}

std::string roofline_figures_json(const StudentResult& r, const std::string& lab) {
    json j = {{"lab", lab}, {"tests", json::array()}};
    for (const TestResult& t : r.tests) {
        const RooflineFigures& f = t.roofline;
        if (!f.measured()) continue;
        if (!j.contains("device")) j["device"] = f.device, j["copy_gbs"] = f.copy_gbs;
        auto count = [](double v) { return v > 0 ? json(v) : json(nullptr); };
        j["tests"].push_back({{"test", t.name}, {"variant", f.variant}, {"size", f.size},
                              {"roofline_bytes", count(f.roofline_bytes)}, {"roofline_flops", count(f.roofline_flops)},
                              {"student_ms", f.student_ms}, {"reference_ms", f.reference_ms}});
    }
    return j["tests"].empty() ? "" : json_text(j, 1) + "\n";
}

RooflinePicture draw_roofline_picture(const StudentResult& r, const std::string& lab, const std::string& folder,
                                      const std::string& id, const RooflineDrawer& draw) {
    RooflinePicture p;
    const std::string figures = roofline_figures_json(r, lab);
    if (figures.empty()) return p;
    p.wanted = true;
    for (const TestResult& t : r.tests)
        if (t.roofline.measured() && restriction(t.visibility) > restriction(p.visibility)) p.visibility = t.visibility;
    const std::string base = folder + "/" + id + ".roofline";
    write_file_atomic(base + ".json", figures);
    unlink((base + ".svg").c_str());  // never an earlier run's picture
    p.problem = draw ? draw(base + ".json", base + ".svg") : "the grader has no renderer for it";
    if (p.problem.empty() && !exists(base + ".svg")) p.problem = "tools/scorecard.py wrote no picture";
    if (p.problem.empty()) {
        p.svg_name = id + ".roofline.svg";
        p.svg = read_file(base + ".svg");
    }
    return p;
}

std::string with_roofline_markdown(const std::string& feedback, const RooflinePicture& picture) {
    if (!picture.wanted) return feedback;
    if (!picture.problem.empty())
        return feedback + "## Roofline\n\nThe roofline picture was not drawn: " + markdown_inline(picture.problem) + ".\n";
    return feedback + "## Roofline\n\nYour kernels and the reference's on this GPU's roofline (arithmetic intensity "
                      "against GFLOP/s, under the measured copy bandwidth and the FP32 peak):\n\n![roofline](" +
           picture.svg_name + ")\n";
}

std::string with_gradescope_roofline(const std::string& results_json, const RooflinePicture& picture) {
    if (!picture.wanted || !picture.problem.empty()) return results_json;
    json j = json::parse(results_json);
    j["tests"].push_back({{"name", "Roofline of the timed tests (a picture, no points)"},
                          {"name_format", "text"},
                          {"max_score", 0.0},
                          {"score", 0.0},
                          {"output", "<img alt=\"roofline: your kernels and the reference's, arithmetic intensity against "
                                     "GFLOP/s\" src=\"data:image/svg+xml;base64," + base64(picture.svg) + "\">"},
                          {"output_format", "html"},
                          {"visibility", visibility_name(picture.visibility)}});
    return json_text(j, 2) + "\n";
}

}  // namespace grading
