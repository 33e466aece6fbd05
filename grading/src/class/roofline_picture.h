// The roofline picture of a submission's feedback: the figures of its timed performance tests
// (results.h, RooflineFigures) written beside its feedback as ID.roofline.json, drawn as
// ID.roofline.svg by the scorecard's renderer (tools/scorecard.py --grader-figures, through
// python3), linked from the feedback's Markdown and shown in Gradescope's results.json as a test
// of no points whose HTML output is the picture. A result without timed figures gets no
// picture and no change anywhere. Host-only: unit-tested with g++ (the drawing injected).
#pragma once
#include <functional>
#include <string>

#include "class/results.h"

namespace grading {

// Draws the figures file into the SVG file: "" when drawn, else why not, in one sentence.
using RooflineDrawer = std::function<std::string(const std::string& figures_path, const std::string& svg_path)>;
// The scorecard's renderer of the course tree at `root`, run as a trusted tool (scratch: its
// output files).
RooflineDrawer scorecard_drawer(const std::string& root, const std::string& scratch);

struct RooflinePicture {
    bool wanted = false;       // some test has timed figures
    std::string svg_name;      // "ID.roofline.svg", beside the feedback, when drawn
    std::string svg;           // its text, when drawn
    std::string problem;       // why it was not drawn
    Visibility visibility = Visibility::Visible;  // the most restricted of the tests it shows
};

// The figures file of a result's timed tests: {"lab", "device", "copy_gbs", "tests": [{"test",
// "variant", "size", "roofline_bytes", "roofline_flops", "student_ms", "reference_ms"}]}; ""
// when none was timed.
std::string roofline_figures_json(const StudentResult& r, const std::string& lab);
// Writes folder/ID.roofline.json and draws folder/ID.roofline.svg with `draw` (none: not drawn).
RooflinePicture draw_roofline_picture(const StudentResult& r, const std::string& lab, const std::string& folder,
                                      const std::string& id, const RooflineDrawer& draw);
// The feedback with the picture linked at its end, or why it was not drawn; unchanged without one.
std::string with_roofline_markdown(const std::string& feedback, const RooflinePicture& picture);
// Gradescope's results.json with the picture as a test of no points (HTML output: an <img> of
// the SVG as a data: URI); unchanged when there is no picture.
std::string with_gradescope_roofline(const std::string& results_json, const RooflinePicture& picture);
std::string base64(const std::string& bytes);

}  // namespace grading
