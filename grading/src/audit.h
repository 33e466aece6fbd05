// Integrity checks on a submission, before and after it is compiled: it may not define main or
// the harness's symbols, include files other than the lab's headers and system headers, embed
// files, or call what the lab forbids. Host-only: unit-tested with g++.
#pragma once
#include <set>
#include <string>
#include <vector>

namespace grading {

struct Finding {
    std::string rule;    // "main", "include", "symbol", "forbidden", "dependency", "embed"
    std::string detail;  // one sentence for the student
};

struct AuditRules {
    std::set<std::string> allowed_local_headers;  // "vector_add.h", "check.h": #include "..." targets
    std::vector<std::string> forbid_includes;     // globs on the included name
    std::vector<std::string> forbid_symbols;      // globs on symbols the file calls
    std::vector<std::string> allow_symbols;       // unmangled symbols the file may define
};

// The source with comments blanked and, if `blank_strings`, string/char literal contents
// blanked (quotes kept), so that the line structure and code tokens survive.
std::string strip_comments_and_strings(const std::string& source, bool blank_strings = true);

// Text checks: main, #include targets, computed includes, .incbin, forbidden identifiers.
std::vector<Finding> audit_source(const std::string& source, const AuditRules& rules);

// One symbol line of `nm`: type letter and name ("T", "_Z3fooi"); "U" for undefined.
struct Symbol {
    char type = '?';
    std::string name;
};
std::vector<Symbol> parse_nm(const std::string& nm_output);
// A global, strong definition (nm type in upper case, not weak W/V): one that wins at link time.
bool is_strong_global(const Symbol& s);

// Object checks on the compiled file: defined symbols that would replace main, the harness
// (`trusted` = strong symbols the driver and common objects define) or a C library / CUDA
// function; calls of forbidden symbols.
std::vector<Finding> audit_symbols(const std::vector<Symbol>& symbols, const std::set<std::string>& trusted,
                                   const AuditRules& rules);

// The kernels the object defines (mangled names, as CUPTI reports them): every global
// function that has a `__device_stub__` twin.
std::set<std::string> kernels_defined(const std::vector<Symbol>& symbols);

// A kernel's name without parameters and return type, whether given mangled (as nm and,
// usually, CUPTI give it) or demangled: "_Z3addPfi" and "add(float*, int)" both give "add".
std::string kernel_key(const std::string& name);

// The files of a make-style dependency file (`nvcc -MD`), target removed.
std::vector<std::string> parse_depfile(const std::string& text);

// Every dependency must resolve (realpath) under one of `allowed_roots`.
std::vector<Finding> audit_dependencies(const std::vector<std::string>& deps,
                                        const std::vector<std::string>& allowed_roots);

}  // namespace grading
