// The audit of what the compiler made of a submission: the preprocessed text (nvcc's own
// intermediate files), the host object and its device code. Nothing here reads the submission's
// source text: digraphs, raw strings, line continuations and macros are the compiler's business,
// and the audit sees their result. Pure logic on the text the tools print (readelf, objdump,
// gcc -E, cudafe++); build.cpp runs the tools. Host-only: unit-tested with g++.
#pragma once
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace grading {

struct Finding {
    // "main", "include", "identifier", "asm", "import", "forbidden", "syscall", "section",
    // "kernel", "interface", "object"
    std::string rule;
    std::string detail;  // one sentence for the student
};

struct AuditRules {
    // Globs on the names the object may import (mangled, or demangled: "std::chrono::*"); a
    // glob starting with '!' takes names back out. grading/allowed-imports.txt, then the
    // rubric's allow_imports.
    std::vector<std::string> allowed_imports;
    std::vector<std::string> allow_imports;
    // The rubric's forbid_symbols: globs on the identifiers of the file's own lines and on the
    // symbols its object imports or defines and the kernels it defines (demangled, without
    // parameters: "thrust::*" and "thrust*" both catch thrust::transform).
    std::vector<std::string> forbid_symbols;
};

// "name glob" lists: one glob per line, '#' starts a comment, blank lines ignored.
std::vector<std::string> parse_glob_list(const std::string& text);
// "name shim" pairs, one per line, '#' comments (grading/shimmed-imports.txt). Throws
// std::invalid_argument naming the line of a line that is not two words.
std::vector<std::pair<std::string, std::string>> parse_import_renames(const std::string& text);

// "ns::f(int)" for "_ZN2ns1fEi"; the name itself when it is not a C++ name.
std::string demangle(const std::string& name);
// A function's qualified name without return type and parameters, whether given mangled or
// demangled: "_Z3addPfi" and "add(float*, int)" give "add", "_ZN2ns4tileILi32EEEvPf" gives
// "ns::tile<32>".
std::string qualified_name(const std::string& name);

// ---- C++ spellings: read alike in the preprocessed text (here) and in the file (line_directives.h)

bool ident_start(unsigned char c);  // a letter, '_', '$', or a byte of a UTF-8 sequence
bool ident_char(unsigned char c);   // those and digits
// The end of the quoted literal ('"' or '\'') at `i`: past its closing quote, or the line's end.
size_t quoted_end(const std::string& s, size_t i);
// The end of the number at `i` (a pp-number: digits, letters, '.', exponent signs, digit quotes).
size_t number_end(const std::string& s, size_t i);

// ---- the preprocessed text: gcc -E output (nvcc's .ii files) ------------------------------

struct IncludeEntry {
    std::string file;    // as the compiler names it: relative to the compile folder, or absolute
    std::string parent;  // the file whose #include read it ("<command-line>" for nvcc's own)
    int line = 0;        // the line of parent that included it
    bool from_main = false;  // included by the compiled file itself
};
struct Identifier {
    std::string name;
    int line = 0;
    bool scope = false;  // followed by "::": a namespace's or class's name ("cub" in cub::WarpReduce)
};
struct PreprocessedText {
    std::string main_file;                  // the compiled file, as the line markers name it
    std::vector<IncludeEntry> includes;     // every file the preprocessor entered, in order
    // Identifiers on the compiled file's own lines: outside every included file (a #line that
    // renames the file does not take its lines out).
    std::vector<Identifier> own_identifiers;
    // Line markers after blanks: gcc writes its own at the line's start, so these are text a
    // macro of the file expanded to, which the compiler's next passes would read as markers.
    std::vector<int> indented_markers;
};
// Line markers ("# 12 \"file\" 1 3") give the files; tokens are read as C++ tokens (raw
// strings included) so that nothing inside a literal counts.
PreprocessedText parse_preprocessed(const std::string& text);

// One finding when the preprocessed text has indented_markers (line_directives.h finds those
// the file spells itself, before it is compiled).
std::vector<Finding> audit_indented_markers(const std::vector<int>& lines);

// The identifiers of the file's own lines that match forbid_symbols, or "__cuda*" (the CUDA
// runtime's registration calls: nvcc's, never the file's), once each. A scope's name is also
// tried with "::" after it, so that "cub::*" forbids cub::WarpReduce as "cub" does.
std::vector<Finding> audit_identifiers(const std::vector<Identifier>& identifiers,
                                       const std::vector<std::string>& forbid_symbols);

// ---- the host translation unit: cudafe++'s .cudafe1.cpp ------------------------------------

// An asm statement (or a file-scope asm) in host code. Device function bodies are inside
// "#if 0" there, so inline PTX in device code is not one. Asm labels of declarations
// (glibc's `int fscanf(...) __asm__("__isoc99_fscanf")`) are not statements: they only rename
// what is imported, which the import check sees.
struct AsmStatement {
    std::string file;
    int line = 0;
    bool own = false;                   // on the compiled file's own lines
    std::vector<std::string> literals;  // its string literals, as spelled ("\"pause\"")
};
std::vector<AsmStatement> host_asm_statements(const std::string& cudafe1_cpp);

// ---- the objects: readelf, objdump ----------------------------------------------------------

// One symbol of `readelf -sW` (SECTION and FILE symbols are left out).
struct ElfSymbol {
    std::string name;
    std::string type;   // FUNC, OBJECT, NOTYPE, TLS, IFUNC, COMMON
    std::string bind;   // LOCAL, GLOBAL, WEAK, UNIQUE
    bool defined = false;
    unsigned other = 0;  // st_other beyond the visibility ("[<other>: 10]"), 0 when not shown
    unsigned long long value = 0;  // its address within its section
    unsigned long long size = 0;
    int section = -1;              // the index of its section; -1 when undefined or absolute
};
std::vector<ElfSymbol> parse_readelf_symbols(const std::string& readelf_output);
// The kernels of a device ELF (a cubin): functions marked as entries (STO_CUDA_ENTRY, 0x10),
// static and anonymous-namespace ones included, by their exact (mangled) names, which are the
// names CUPTI reports.
std::set<std::string> device_entries(const std::vector<ElfSymbol>& cubin_symbols);

struct Section {
    std::string name, type, flags;  // flags as readelf prints them: "AX", "WA", "MS"
    int index = -1;                 // [Nr]
};
std::vector<Section> parse_readelf_sections(const std::string& readelf_output);  // readelf -SW
// Only the sections a compiler makes of ordinary C++ and CUDA code: no .preinit_array (it runs
// before the harness and the trace library are set up), no .ctors/.init/.interp and other
// sections a linker gives a meaning to, nothing both writable and executable, no executable
// stack. What .init_array and .fini_array call is audit_startup_code's.
std::vector<Finding> audit_sections(const std::vector<Section>& sections);

// One entry of a relocation section (readelf -rW): the symbol it points at, plus the addend
// (a section's name when the target is a local function: ".text + c7").
struct Relocation {
    std::string section;  // the section relocated (".init_array" for ".rela.init_array")
    unsigned long long offset = 0;  // where in that section
    std::string type;               // R_X86_64_64, R_X86_64_PC32...
    std::string symbol;
    long long addend = 0;
};
std::vector<Relocation> parse_readelf_relocations(const std::string& readelf_output);
// The student's code runs only inside the lab's functions: an object whose .init_array calls
// anything but nvcc's registration of its device code and the standard library's own start-up
// (<iostream>'s ios_base::Init, before GCC 13) -- a global object with a constructor or
// destructor, a function pointer placed in .init_array -- or that has a .fini_array, has code of
// its own that runs before or after them.
std::vector<Finding> audit_startup_code(const std::vector<Relocation>& relocations, const std::vector<ElfSymbol>& symbols,
                                        const std::vector<Section>& sections);

// System call instructions (syscall, sysenter, int $0x80) in `objdump -dw --no-show-raw-insn`
// output: "syscall in f()", one per function.
std::vector<std::string> system_call_instructions(const std::string& objdump_output);

// The images of the fatbinaries in an object's .nv_fatbin section (one or more containers).
struct FatbinImage {
    unsigned kind = 0;   // 1 PTX, 2 ELF (a cubin)
    unsigned arch = 0;   // 90 for sm_90
    std::string data;    // the payload as stored (compressed PTX stays compressed)
    bool is_elf() const { return data.size() >= 4 && data.compare(0, 4, "\x7f" "ELF") == 0; }
};
// False, with `error` set, when the bytes are not a well-formed sequence of containers.
bool parse_fatbin(const std::string& bytes, std::vector<FatbinImage>& images, std::string& error);

// ---- the object's symbols -------------------------------------------------------------------

// Every import (undefined symbol) must match the allow-list (or be one the grading shims take
// over, `renamed`), and none may match forbid_symbols.
std::vector<Finding> audit_imports(const std::vector<ElfSymbol>& symbols, const AuditRules& rules,
                                   const std::set<std::string>& renamed);
// Functions and kernels that belong to a forbidden library (a thrust algorithm compiled into the
// file leaves thrust:: functions and kernels behind; an unused header leaves none).
std::vector<Finding> audit_forbidden_definitions(const std::vector<ElfSymbol>& symbols,
                                                 const std::set<std::string>& kernels,
                                                 const std::vector<std::string>& forbid_symbols);
// main defined (the driver owns main), interface functions missing, kernels named like the
// harness's (`trusted_kernels`): they would be taken for the harness's in the kernel trace.
std::vector<Finding> audit_definitions(const std::vector<ElfSymbol>& symbols, const std::set<std::string>& kernels,
                                       const std::set<std::string>& interface,
                                       const std::set<std::string>& trusted_kernels);

// What stays global after localization: the interface functions the object defines. Every
// other symbol it defines becomes local to it (objcopy --keep-global-symbols).
std::vector<std::string> symbols_to_keep_global(const std::vector<ElfSymbol>& symbols,
                                                const std::set<std::string>& interface);
// The renames (objcopy --redefine-sym) for the imports the object has.
std::vector<std::pair<std::string, std::string>> renames_to_apply(
    const std::vector<ElfSymbol>& symbols, const std::vector<std::pair<std::string, std::string>>& import_renames);
// After localization and renaming: only interface symbols defined globally, no import left
// that should have been renamed.
std::vector<Finding> check_localized(const std::vector<ElfSymbol>& symbols, const std::set<std::string>& interface,
                                     const std::vector<std::pair<std::string, std::string>>& import_renames);

// ---- what the compiler read -----------------------------------------------------------------

// The files of a make-style dependency file (`nvcc -MD`), target removed.
std::vector<std::string> parse_depfile(const std::string& text);

struct IncludeRules {
    std::string compile_dir;                // relative names are relative to it
    std::set<std::string> staged_headers;   // the lab's and harness's headers (real paths)
    std::string own_file;                   // the compiled file (real path)
    std::vector<std::string> system_roots;  // folders of system and CUDA headers
};
// Every file read must be a staged header, the compiled file itself, or under a system root,
// judged by its real path (links and ".." resolved), never by its spelling.
std::vector<Finding> audit_includes(const std::vector<IncludeEntry>& includes, const IncludeRules& rules);
std::vector<Finding> audit_dependencies(const std::vector<std::string>& deps, const IncludeRules& rules);
// Asm statements on the file's own lines are rejected. Headers have some (CCCL's host
// "pause"); one is believed to come from the header the line markers name only if that header
// (an allowed one) holds each of its string literals, so that line directives in the file
// cannot pass its own assembly off as a header's.
std::vector<Finding> audit_host_asm(const std::vector<AsmStatement>& statements, const IncludeRules& rules);

// ---- a failed compile -----------------------------------------------------------------------

// The preprocessing commands in `nvcc --dryrun` output (stderr): each host-compiler run with
// -E, its "-o FILE" removed so that it writes to stdout. Empty when a line cannot be taken
// apart without a shell (quotes other than "...", $, `, |, ;, &, <, >).
std::vector<std::vector<std::string>> preprocess_commands(const std::string& dryrun_output);

}  // namespace grading
