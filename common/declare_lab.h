// What every driver's main() declares alike, stated once. A lab's name is its folder's,
// "NN-topic", which the Makefile hands to the driver's compile (CUDALABS_LAB_NAME), and the NN of
// its TODO(labNN) markers is read from that name: neither can disagree with the folder. Its
// three lists of sizes travel together as one LabSizes.
#pragma once
#include <string>
#include <vector>

#include "args.h"
#include "lab.h"

#ifndef CUDALABS_LAB_NAME
#error "CUDALABS_LAB_NAME is not set: build the lab with make, which names it after its folder (labs/NN-topic)"
#endif

namespace cudalabs {

// The sizes a lab runs at.
struct LabSizes {
    std::vector<Dims> check;  // default run: correctness, awkward shapes included
    std::vector<Dims> bench;  // --bench
    std::vector<Dims> quick;  // --quick (compute-sanitizer)
};

// The NN of a lab named "NN-topic" (the whole name when it has no dash).
inline std::string lab_number(const std::string& name) { return name.substr(0, name.find('-')); }

// This lab, of shape S: its name and number from its folder, the one-line title for --help and
// the report, its sizes and what they mean (N, NxM, NxMxK). The driver adds its variants and
// whatever else it declares (lab.h), then returns run_lab(lab, argc, argv).
template <class S>
LabOf<S> declare_lab(const std::string& title, const LabSizes& sizes, const std::string& size_help) {
    LabOf<S> lab;
    lab.name = CUDALABS_LAB_NAME;
    lab.number = lab_number(lab.name);
    lab.title = title;
    lab.size_help = size_help;
    lab.check_sizes = sizes.check;
    lab.bench_sizes = sizes.bench;
    lab.quick_sizes = sizes.quick;
    return lab;
}

}  // namespace cudalabs
