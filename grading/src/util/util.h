// Small file, string and process utilities of the grader. Host-only: unit-tested with g++.
#pragma once
#include <string>
#include <vector>

#include "sandbox/sandbox.h"

namespace grading {

std::string read_file(const std::string& path);
void write_file(const std::string& path, const std::string& text);  // throws when it cannot
bool exists(const std::string& path);
bool is_dir(const std::string& path);
void make_dirs(const std::string& path);  // mkdir -p; throws when the folder cannot be made
void remove_tree(const std::string& path);  // rm -rf, never a path shorter than 8 characters
std::string absolute(const std::string& path);
std::string real_path(const std::string& path);  // realpath(3); "" when the path does not resolve
std::vector<std::string> list_dir(const std::string& dir);  // sorted, without . and ..
std::string basename_of(const std::string& path);

std::string trim(const std::string& s);  // without leading and trailing spaces, tabs, CR and LF
std::vector<std::string> split_ws(const std::string& s);
std::string join(const std::vector<std::string>& v, const std::string& sep);
std::string replace_all(std::string s, const std::string& from, const std::string& to);
// At most `max` bytes of `s`, with a note of how many were left out.
std::string clip(const std::string& s, size_t max);
// A student id safe as a file name: letters, digits, . _ - (others become _), at most 100.
std::string safe_id(const std::string& s);
std::string elapsed_text(double seconds);  // "3m07s"
std::string number_text(double v);         // the shortest form (%g): "4", "0.5", "180"
std::string random_hex(size_t bytes);

// Runs a trusted tool (make, nm, nvcc --version) with the grader's environment (`env_override`:
// "NAME=value" entries that replace or add to it) and returns what it printed.
RunResult run_trusted(const std::vector<std::string>& argv, const std::string& cwd, double timeout_s,
                      const std::string& scratch_dir, const std::vector<std::string>& env_override = {});

}  // namespace grading
