// The hidden inputs of a run: every trial of every test has its own seed, fixed by the run's
// base seed, so that every student (and every shard of a class) gets the same inputs and a
// regrade with the same seed repeats them. Host-only: unit-tested with g++.
#pragma once
#include <string>
#include <vector>

#include "intake/rubric.h"

namespace grading {

unsigned long long derive_seed(unsigned long long base, const std::string& test_id, int trial);

// The test's fixed sizes followed by its random sizes drawn from `seed`, each size once.
std::vector<std::string> sizes_for(const TestSpec& test, unsigned long long seed);

}  // namespace grading
