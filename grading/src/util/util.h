// Small file, string and process utilities of the grader. Host-only: unit-tested with g++.
#pragma once
#include <stdexcept>
#include <string>
#include <vector>

#include "sandbox/sandbox.h"

namespace grading {

std::string read_file(const std::string& path);
void write_file(const std::string& path, const std::string& text);  // throws when it cannot
// A write of the grader's own records that failed (a full disk, a folder that cannot be written):
// the environment's failure, never a student's, so it stops the run; what was recorded stays.
struct StorageError : std::runtime_error {
    using std::runtime_error::runtime_error;
};
// Writes a temporary file beside `path`, flushes it to the disk and renames it over `path`: a run
// killed at any moment leaves the old text or the new, never half of it. Throws StorageError.
void write_file_atomic(const std::string& path, const std::string& text);
// Appends `line` and a newline in one write, flushed to the disk: a kill leaves at most a torn
// last line, which complete_lines drops. Throws StorageError.
void append_line_synced(const std::string& path, const std::string& line);
// The text up to its last newline: a last line without one was cut by a kill (`torn` says so).
std::string complete_lines(const std::string& text, bool* torn = nullptr);
// Writes and removes a probe file of 64 KiB in `dir`: throws StorageError, naming the folder and
// why, when the folder cannot be written or its disk is full.
void check_writable(const std::string& dir);
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
