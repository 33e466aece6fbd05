// What every driver's main() declares alike, stated once: a lab is named by its folder,
// "NN-topic", and the NN of its TODO(labNN) markers is read from that name, so the two cannot
// disagree; its three lists of sizes travel together as one LabSizes.
#pragma once
#include <string>
#include <vector>

#include "args.h"
#include "lab.h"

namespace cudalabs {

// The sizes a lab runs at.
struct LabSizes {
    std::vector<Dims> check;  // default run: correctness, awkward shapes included
    std::vector<Dims> bench;  // --bench
    std::vector<Dims> quick;  // --quick (compute-sanitizer)
};

// The NN of a lab named "NN-topic" (the whole name when it has no dash).
inline std::string lab_number(const std::string& name) { return name.substr(0, name.find('-')); }

// A lab of shape S: its name ("01-vector-add") and number, the one-line title for --help and
// the report, what its sizes mean (N, NxM, NxMxK) and its sizes. The driver adds its variants
// and whatever else it declares (lab.h), then returns run_lab(lab, argc, argv).
template <class S>
LabOf<S> declare_lab(const std::string& name, const std::string& title, const std::string& size_help,
                     const LabSizes& sizes) {
    LabOf<S> lab;
    lab.number = lab_number(name);
    lab.name = name;
    lab.title = title;
    lab.size_help = size_help;
    lab.check_sizes = sizes.check;
    lab.bench_sizes = sizes.bench;
    lab.quick_sizes = sizes.quick;
    return lab;
}

}  // namespace cudalabs
