// The grader's audit of what the compiler made of a submission (grading/src/compile/audit.h), on text
// the real tools printed: gcc -E and cudafe++ output of nvcc 13, readelf, objdump, nvcc --dryrun.
#include <doctest/doctest.h>

#include <cstdint>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <string>

#include "grading/src/compile/audit.h"
#include "grading/src/compile/build.h"
#include "grading/src/util/breakdown.h"
#include "grading/src/isolation/isolation.h"
#include "grading/src/util/files.h"
#include "grading/src/util/text.h"
#include "grading_fixtures.h"

using namespace grading;

namespace {
bool has(const std::vector<Finding>& f, const std::string& rule, const std::string& text = "") {
    for (const Finding& x : f)
        if (x.rule == rule && x.detail.find(text) != std::string::npos) return true;
    return false;
}
std::vector<std::string> names(const std::vector<Identifier>& ids) {
    std::vector<std::string> out;
    for (const Identifier& i : ids) out.push_back(i.name);
    return out;
}
bool contains(const std::vector<std::string>& v, const std::string& s) { return std::find(v.begin(), v.end(), s) != v.end(); }

ElfSymbol sym(const std::string& name, const std::string& bind, bool defined, const std::string& type = "FUNC") {
    ElfSymbol s;
    s.name = name;
    s.bind = bind;
    s.defined = defined;
    s.type = type;
    return s;
}

// A folder with staged headers, a student file and a "system" root, removed afterwards.
struct Tree {
    grading_fixtures::TempDir dir{"cudalabs-audit"};
    std::string root = dir.path;
    Tree() {
        for (const char* d : {"/stage", "/stage/common", "/stage/labs", "/stage/labs/01", "/sys", "/elsewhere"})
            mkdir((root + d).c_str(), 0755);
        for (const char* f : {"/stage/common/check.h", "/stage/labs/01/vector_add.h", "/stage/labs/01/vector_add.cu",
                              "/sys/stdio.h", "/elsewhere/solution.cu", "/stage/notes.h"})
            write(f, "// nothing\n");
    }
    void write(const std::string& f, const std::string& text) const { std::ofstream(root + f) << text; }
    IncludeRules rules() const {
        IncludeRules r;
        char buf[4096];
        r.compile_dir = realpath((root + "/stage").c_str(), buf);
        r.own_file = r.compile_dir + "/labs/01/vector_add.cu";
        r.staged_headers = {r.compile_dir + "/common/check.h", r.compile_dir + "/labs/01/vector_add.h"};
        r.system_roots = {root + "/sys"};
        return r;
    }
};
// A compiler for sandboxed_build: a shell script of `body` (its arguments the compile's), written
// anew in the tree.
std::string fake_compiler(const Tree& t, const std::string& body) {
    static int n = 0;
    const std::string path = t.root + "/compiler" + std::to_string(n++);
    write_file(path, "#!/bin/sh\n" + body + "\n");
    chmod(path.c_str(), 0755);
    return path;
}

// A build of the tree's stage, run as it is (no sandbox); each test chooses its compiler.
BuildSpec sandboxed_build(const Tree& t) {
    BuildSpec spec;
    spec.stage_dir = t.root + "/stage";
    spec.lab_dir = "labs/01";
    spec.topic_file = "vector_add.cu";
    spec.nvcc = "nvcc";
    spec.cuda_home = t.root + "/sys";
    spec.private_dir = t.root + "/private";
    spec.rules.allowed_imports = {"cuda*"};
    return spec;
}
}  // namespace

TEST_CASE("glob lists and the import renames parse") {
    CHECK(parse_glob_list("# comment\ncuda*\n\n  std::chrono::*  \n!cudaIpc*\n") ==
          std::vector<std::string>{"cuda*", "std::chrono::*", "!cudaIpc*"});
    auto r = parse_import_renames("# imported name  shim\ncudaMemcpy   cudalabs_shim_cudaMemcpy\n\ncudaMallocHost x  # c\n");
    REQUIRE(r.size() == 2);
    CHECK(r[0] == std::make_pair(std::string("cudaMemcpy"), std::string("cudalabs_shim_cudaMemcpy")));
    CHECK(r[1].second == "x");
    CHECK_THROWS_AS(parse_import_renames("cudaMemcpy\n"), std::invalid_argument);
}

TEST_CASE("names demangle to the qualified name without return type and parameters") {
    CHECK(demangle("_Z3addPfi") == "add(float*, int)");
    CHECK(demangle("c_k") == "c_k");
    CHECK(qualified_name("_Z18add_one_per_threadPKfS0_Pfi") == "add_one_per_thread");
    CHECK(qualified_name("add_one_per_thread(const float *, const float *, float *, int)") == "add_one_per_thread");
    CHECK(qualified_name("_ZN2ns4tileILi32EEEvPf") == "ns::tile<32>");
    CHECK(qualified_name("_ZN2ns4tileILi32EEEvPf") == qualified_name("void ns::tile<32>(float*)"));
    CHECK(qualified_name("_ZN31_GLOBAL__N__888d6879_4_k_cu_c_k6anon_kEPf").find("anon_k") != std::string::npos);
    CHECK(qualified_name("_ZNSt6chrono3_V212steady_clock3nowEv") == "std::chrono::_V2::steady_clock::now");
    // "operator<< <traits>" keeps its template arguments; the return type goes.
    CHECK(qualified_name("_ZStlsISt11char_traitsIcEERSt13basic_ostreamIcT_ES5_PKc") ==
          "std::operator<< <std::char_traits<char> >");
    CHECK(qualified_name("_ZN7FunctorclEi") == "Functor::operator()");
    CHECK(qualified_name("c_k") == "c_k");
}

// gcc -E output: the forced include, a header, the file's own lines with a raw string that
// holds a line looking like a directive, a #line rename, a pragma, a line marker that pretends
// to enter a header (its lines are not the file's own here: such a file is refused before it is
// compiled, line_directives.h).
const char* const kPreprocessed = R"ii(# 0 "labs/01/vector_add.cu"
# 0 "<built-in>"
# 0 "<command-line>"
# 1 "/usr/include/stdc-predef.h" 1 3 4
# 0 "<command-line>" 2
# 1 "/usr/local/cuda/include/cuda_runtime.h" 1
typedef int cudaError_t;
extern "C" cudaError_t cudaMalloc(void**, unsigned long);
# 0 "<command-line>" 2
# 1 "labs/01/vector_add.cu"
# 1 "labs/01/vector_add.h" 1
# 1 "common/check.h" 1
void check_hidden_name();
# 2 "labs/01/vector_add.h" 2
void vector_add_host(const float*, const float*, float*, int);
# 2 "labs/01/vector_add.cu" 2

static const char* text = R"x(
# 1 "/usr/include/stdio.h" 1
int inside_raw;
)x";
#pragma GCC diagnostic push
int own_one = u8"cublasSgemm"[0] + 'q';
# 1 "/usr/include/stdlib.h"
int renamed_but_own(int v) { return system(v); }
# 9 "labs/01/vector_add.cu"
# 1 "/usr/include/stdlib.h" 1 3 4
int hidden_by_marker;
# 12 "labs/01/vector_add.cu" 2
int last_line;
)ii";

TEST_CASE("preprocessed text: the files read and the identifiers of the file's own lines") {
    PreprocessedText p = parse_preprocessed(kPreprocessed);
    CHECK(p.main_file == "labs/01/vector_add.cu");
    std::vector<std::string> files;
    for (const IncludeEntry& e : p.includes) files.push_back(e.file);
    CHECK(files == std::vector<std::string>{"/usr/include/stdc-predef.h", "/usr/local/cuda/include/cuda_runtime.h",
                                            "labs/01/vector_add.h", "common/check.h", "/usr/include/stdlib.h"});
    CHECK(p.includes[1].parent == "<command-line>");
    CHECK(p.includes[2].from_main);
    CHECK(p.includes[2].line == 1);
    CHECK_FALSE(p.includes[3].from_main);
    CHECK(p.includes[3].parent == "labs/01/vector_add.h");
    CHECK(p.includes[4].from_main);  // the pretended entry, named as such

    std::vector<std::string> own = names(p.own_identifiers);
    CHECK(contains(own, "text"));
    CHECK(contains(own, "own_one"));
    CHECK(contains(own, "renamed_but_own"));  // a #line rename keeps the lines the file's own
    CHECK(contains(own, "system"));
    CHECK(contains(own, "last_line"));
    CHECK_FALSE(contains(own, "inside_raw"));   // inside a raw string
    CHECK_FALSE(contains(own, "cublasSgemm"));  // inside a string literal
    CHECK_FALSE(contains(own, "q"));            // a character literal
    CHECK_FALSE(contains(own, "pragma"));
    CHECK_FALSE(contains(own, "cudaMalloc"));   // a header's
    CHECK_FALSE(contains(own, "check_hidden_name"));
    CHECK_FALSE(contains(own, "hidden_by_marker"));
    for (const Identifier& i : p.own_identifiers)
        if (i.name == "own_one") CHECK(i.line == 8);
        else if (i.name == "last_line") CHECK(i.line == 12);

    auto found = audit_identifiers(p.own_identifiers, {"system", "cublas*"});
    REQUIRE(found.size() == 1);
    CHECK(found[0].detail == "'system' is not allowed in this lab (line 1)");
    CHECK(has(audit_identifiers({{"__cudaRegisterFatBinary", 4, false}, {"__cudaRegisterFatBinary", 5, false}}, {}), "identifier",
              "'__cudaRegisterFatBinary' is not allowed in this lab (line 4)"));
    CHECK(audit_identifiers({{"cudaMalloc", 1, false}, {"cube", 2, false}}, {"cub", "thrust*"}).empty());
    // "cub::*" forbids the namespace, not a variable called cub.
    CHECK(has(audit_identifiers({{"cub", 3, true}}, {"cub::*"}), "identifier", "'cub' is not allowed in this lab (line 3)"));
    CHECK(audit_identifiers({{"cub", 3, false}}, {"cub::*"}).empty());
    PreprocessedText q = parse_preprocessed("# 1 \"f.cu\"\nusing W = cub::WarpReduce<float>; int cub = 1; a ::b;\n");
    // using W = cub :: WarpReduce < float > ; int cub = 1 ; a :: b ;  (keywords are identifiers here)
    REQUIRE(q.own_identifiers.size() == 9);
    CHECK(q.own_identifiers[2].name == "cub");
    CHECK(q.own_identifiers[2].scope);
    CHECK_FALSE(q.own_identifiers[3].scope);  // WarpReduce
    CHECK(q.own_identifiers[6].name == "cub");
    CHECK_FALSE(q.own_identifiers[6].scope);  // int cub
    CHECK(q.own_identifiers[7].name == "a");
    CHECK(q.own_identifiers[7].scope);
}

// cudafe++'s host translation unit (nvcc 13): device bodies in #if 0 (inline PTX there), glibc's
// asm labels, CCCL's host "pause", the file's own host assembly, a host lambda.
const char* const kCudafe = R"cpp(# 1 "t.cu"
static char __nv_inited_managed_rt = 0;
# 1 "/usr/include/stdio.h" 3
extern int fscanf(FILE *__restrict__ __stream, const char *__restrict__ __format, ...) __asm__("__isoc99_fscanf");
extern int sscanf(const char *__restrict__ __s, const char *__restrict__ __format, ...) noexcept(true) __asm__("__isoc99_sscanf");
extern "C++" wchar_t *wmemchr(wchar_t * __s, wchar_t __c, size_t __n) noexcept(true) __asm__("wmemchr");
extern int (*fp)(int) __asm__("fp_label");
int table[4] __asm__("table_label");
# 55 "/usr/local/cuda/include/cccl/cuda/std/__thread/threading_support.h"
static inline void __cccl_thread_yield_processor() {
# 57
(__asm__ volatile("pause" : : :)); }
# 2 "t.cu"
__attribute__((unused)) int dev(int x) {int volatile ___ = 1;(void)x;
# 4
::exit(___);}
#if 0
# 2
{ int r; __asm__("mov.u32 %0, %1;" : "=r" (r) : "r" (x)); const char *s = ("\n#endif\n");
# 4
return r + (s[0]); }
#endif
# 10 "t.cu"
__asm__(".globl toplevel_sym");
# 12
int host(int x) { if (x) __asm__("nop"); const char *t = ("asm(\"syscall\")"); return x + (t[0]); }
# 16
auto lam = [](int v) { return v * 2; } ; typedef decltype(lam) __T0;
# 17
void f() { register long sp __asm__("rsp"); [[gnu::unused]] __asm__("ud2"); }
)cpp";

TEST_CASE("host assembly: statements found, device bodies and asm labels not") {
    std::vector<AsmStatement> a = host_asm_statements(kCudafe);
    REQUIRE(a.size() == 4);
    CHECK(a[0].file == "/usr/local/cuda/include/cccl/cuda/std/__thread/threading_support.h");
    CHECK(a[0].line == 57);
    CHECK_FALSE(a[0].own);
    CHECK(a[0].literals == std::vector<std::string>{"\"pause\""});
    CHECK(a[1].own);
    CHECK(a[1].line == 10);
    CHECK(a[1].literals == std::vector<std::string>{"\".globl toplevel_sym\""});
    CHECK(a[2].own);  // after if (...): a statement, not a declarator's label
    CHECK(a[2].line == 12);
    CHECK(a[3].own);  // after [[attributes]]
    CHECK(a[3].line == 17);

    Tree t;
    IncludeRules rules = t.rules();
    t.write("/sys/yield.h", "#define YIELD asm volatile(\"pause\" ::);\n");
    AsmStatement header{t.root + "/sys/yield.h", 1, false, {"\"pause\""}};
    CHECK(audit_host_asm({header}, rules).empty());
    AsmStatement forged = header;
    forged.literals = {"\"syscall\""};  // a #line naming the header cannot pass it off
    CHECK(has(audit_host_asm({forged}, rules), "asm", "which does not hold it"));
    AsmStatement outside = header;
    outside.file = t.root + "/elsewhere/solution.cu";
    outside.literals = {};
    CHECK(has(audit_host_asm({outside}, rules), "asm"));
    CHECK(has(audit_host_asm({a[1]}, rules), "asm", "inline assembly in host code (line 10)"));
}

// readelf -sW of a cubin (nvcc 13, sm_90): entries are STO_CUDA_ENTRY (0x10), static and
// anonymous-namespace kernels LOCAL.
const char* const kCubinSymbols = R"(
Symbol table '.symtab' contains 21 entries:
   Num:    Value          Size Type    Bind   Vis      Ndx Name
     0: 0000000000000000     0 NOTYPE  LOCAL  DEFAULT  UND 
     3: 0000000000000000     0 SECTION LOCAL  DEFAULT   19 .text._ZN2ns4ns_kEPf
     4: 0000000000000000     4 OBJECT  WEAK   DEFAULT  UND .nv.reservedSmem.offset0
     5: 0000000000000000     0 NOTYPE  WEAK   DEFAULT [<other>: a0]    22 __nv_reservedSMEM_offset_0_alias
     6: 0000000000000000   256 FUNC    LOCAL  DEFAULT [<other>: 10]    19 _ZN31_GLOBAL__N__888d6879_4_k_cu_c_k6anon_kEPf
    11: 0000000000000000    64 FUNC    GLOBAL DEFAULT   25 _Z6helperf
    12: 0000000000000000   256 FUNC    LOCAL  DEFAULT [<other>: 10]    24 _Z8static_kPf
    16: 0000000000000000   256 FUNC    GLOBAL DEFAULT [<other>: 10]    18 _ZN2ns4ns_kEPf
    18: 0000000000000000   256 FUNC    GLOBAL DEFAULT [<other>: 10]    21 _Z6tmpl_kILi7EEvPf
    20: 0000000000000000   256 FUNC    GLOBAL DEFAULT [<other>: 10]    23 c_k
)";

// readelf -sW of a host object (g++ 12): weak, unique, global, local and undefined symbols.
const char* const kHostSymbols = R"(
Symbol table '.symtab' contains 9 entries:
   Num:    Value          Size Type    Bind   Vis      Ndx Name
     0: 0000000000000000     0 NOTYPE  LOCAL  DEFAULT  UND 
     1: 0000000000000000     0 FILE    LOCAL  DEFAULT  ABS sy.cc
     2: 0000000000000000     0 SECTION LOCAL  DEFAULT    2 .text
     3: 0000000000000000     0 NOTYPE  LOCAL  DEFAULT    6 .LC0
     4: 0000000000000000     3 FUNC    WEAK   DEFAULT    2 puts
     5: 0000000000000010    35 FUNC    GLOBAL DEFAULT    2 _Z3usev
     6: 0000000000000000     4 OBJECT  UNIQUE DEFAULT    7 _ZZ6sharedvE1s
     7: 0000000000000000     4 OBJECT  GLOBAL DEFAULT    4 counter
     8: 0000000000000000     0 NOTYPE  GLOBAL DEFAULT  UND printf
)";

TEST_CASE("readelf symbols: binding, definition, device entries") {
    auto cubin = parse_readelf_symbols(kCubinSymbols);
    CHECK(device_entries(cubin) == std::set<std::string>{"_ZN31_GLOBAL__N__888d6879_4_k_cu_c_k6anon_kEPf", "_Z8static_kPf",
                                                         "_ZN2ns4ns_kEPf", "_Z6tmpl_kILi7EEvPf", "c_k"});
    auto host = parse_readelf_symbols(kHostSymbols);
    REQUIRE(host.size() == 6);
    CHECK(host[0].name == ".LC0");
    CHECK(host[1].name == "puts");
    CHECK(host[1].bind == "WEAK");
    CHECK(host[1].defined);
    CHECK(host[3].bind == "UNIQUE");
    CHECK(host[3].type == "OBJECT");
    CHECK(host[5].name == "printf");
    CHECK_FALSE(host[5].defined);
}

// readelf -SW of a student object with a .preinit_array (nvcc 13 + g++ 12), shortened.
const char* const kSections = R"(There are 30 section headers, starting at offset 0x8040:

Section Headers:
  [Nr] Name              Type            Address          Off    Size   ES Flg Lk Inf Al
  [ 0]                   NULL            0000000000000000 000000 000000 00      0   0  0
  [ 1] .group            GROUP           0000000000000000 000040 00000c 04     27  52  4
  [ 2] .text             PROGBITS        0000000000000000 000050 000c34 00  AX  0   0 16
  [ 3] .rela.text        RELA            0000000000000000 006b38 000de0 18   I 27   2  8
  [ 5] .bss              NOBITS          0000000000000000 000c88 000054 00  WA  0   0  8
  [ 6] .nv_fatbin        PROGBITS        0000000000000000 000c88 004718 00   A  0   0  8
  [10] .rodata.str1.8    PROGBITS        0000000000000000 005490 000160 01 AMS  0   0  8
  [12] .text.startup     PROGBITS        0000000000000000 0056b0 0000ba 00  AX  0   0 16
  [14] .init_array       INIT_ARRAY      0000000000000000 005770 000008 08  WA  0   0  8
  [16] .nvFatBinSegment  PROGBITS        0000000000000000 005778 000018 00  WA  0   0  8
  [18] .preinit_array    PREINIT_ARRAY   0000000000000000 005790 000008 08  WA  0   0  8
  [19] .rela.preinit_array RELA            0000000000000000 007be8 000018 18   I 27  18  8
  [21] .data.rel.local.DW.ref.__gxx_personality_v0 PROGBITS        0000000000000000 0057a8 000008 00 WAG  0   0  8
  [24] .note.GNU-stack   PROGBITS        0000000000000000 0057d8 000000 00      0   0  1
  [27] .symtab           SYMTAB          0000000000000000 005b78 000798 18     28  50  8
Key to Flags:
  W (write), A (alloc), X (execute), M (merge), S (strings), I (info),
)";

TEST_CASE("sections: ordinary ones pass, .preinit_array and writable code do not") {
    auto s = parse_readelf_sections(kSections);
    REQUIRE(s.size() == 14);
    CHECK(s[0].name == ".group");
    CHECK(s[1].name == ".text");
    CHECK(s[1].flags == "AX");
    CHECK(s[9].name == ".preinit_array");
    CHECK(s[9].type == "PREINIT_ARRAY");
    CHECK(s[12].flags == "");  // .note.GNU-stack: no flags
    CHECK(s[11].flags == "WAG");
    auto found = audit_sections(s);
    REQUIRE(found.size() == 1);  // .rela.preinit_array goes with it
    CHECK(has(found, "section", "'.preinit_array'"));

    std::vector<Section> odd = {{".text.evil", "PROGBITS", "WAX"}, {".data.code", "PROGBITS", "AX"},
                                {".ctors", "PROGBITS", "WA"}, {".interp", "PROGBITS", "A"},
                                {".text.writable", "PROGBITS", "WA"}, {".note.GNU-stack", "PROGBITS", "X"},
                                {"my section", "PROGBITS", "A"}};
    auto bad = audit_sections(odd);
    CHECK(bad.size() == odd.size());
    CHECK(has(bad, "section", "both writable and executable"));
    CHECK(has(bad, "section", "executable code in the section '.data.code'"));
    CHECK(has(bad, "section", "'.ctors'"));
    CHECK(has(bad, "section", "'.interp'"));
    CHECK(has(bad, "section", "writable data in the code section"));
    CHECK(has(bad, "section", "executable stack"));
    CHECK(audit_sections({{".text._Z3fooIiEvv", "PROGBITS", "AXG"}, {".tbss.x", "NOBITS", "WAT"},
                          {".init_array.00101", "INIT_ARRAY", "WA"}, {"__nv_module_id", "PROGBITS", "A"}})
              .empty());
}

// objdump -dw --no-show-raw-insn (binutils 2.40) of host code with a syscall and an int $0x80;
// `plain` has the bytes 0f 05 inside an immediate, which is not an instruction.
const char* const kDisassembly = R"(
sc.o:     file format elf64-x86-64


Disassembly of section .text:

0000000000000000 <_Z3rawl>:
   0:	mov    %rdi,%rax
   3:	syscall
   5:	ret
   6:	cs nopw 0x0(%rax,%rax,1)

0000000000000010 <_Z3oldv>:
  10:	int    $0x80
  12:	ret
  13:	data16 cs nopw 0x0(%rax,%rax,1)
  1e:	xchg   %ax,%ax

0000000000000020 <_Z5plaini>:
  20:	imul   $0x50f,%edi,%eax
  26:	call   2b <syscall_wrapper>
  2b:	ret
)";

TEST_CASE("system call instructions in host code") {
    CHECK(system_call_instructions(kDisassembly) == std::vector<std::string>{"syscall in raw(long)", "int $0x80 in old()"});
    CHECK(system_call_instructions("0000000000000000 <f>:\n   0:\tsysenter\n   2:\tsysenter\n") ==
          std::vector<std::string>{"sysenter in f"});
    CHECK(system_call_instructions("0000000000000000 <f>:\n   0:\tret\n").empty());
}

namespace {
void put(std::string& b, uint64_t v, size_t bytes) {
    for (size_t k = 0; k < bytes; ++k) b += static_cast<char>((v >> (8 * k)) & 0xff);
}
// One fatbinary entry as nvcc 13 lays it out: kind, version, header size, payload size, ... the
// architecture at byte 28, then the payload.
std::string entry(unsigned kind, unsigned arch, const std::string& payload) {
    std::string e;
    put(e, kind, 2);
    put(e, 0x0101, 2);
    put(e, 64, 4);
    put(e, payload.size(), 8);
    put(e, 0, 8);
    put(e, 0x10008, 4);
    put(e, arch, 4);
    e.resize(64, '\0');
    return e + payload;
}
std::string container(const std::string& entries) {
    std::string c;
    put(c, 0xBA55ED50u, 4);
    put(c, 1, 2);
    put(c, 16, 2);
    put(c, entries.size(), 8);
    return c + entries;
}
}  // namespace

TEST_CASE("fatbinaries: containers, entries, the cubins in them") {
    const std::string cubin = std::string("\x7f" "ELF\x02\x01\x01\x41", 8) + "rest of the cubin";
    const std::string ptx = "(\xb5/\xfd compressed ptx";
    std::string section = container(entry(2, 90, cubin) + entry(1, 90, ptx));
    section.append(8 - section.size() % 8, '\0');  // padding to the next container
    section += container(entry(2, 80, cubin));
    section.append(16, '\0');
    std::vector<FatbinImage> images;
    std::string error;
    REQUIRE(parse_fatbin(section, images, error));
    REQUIRE(images.size() == 3);
    CHECK(images[0].kind == 2);
    CHECK(images[0].arch == 90);
    CHECK(images[0].data == cubin);
    CHECK(images[0].is_elf());
    CHECK(images[1].kind == 1);
    CHECK_FALSE(images[1].is_elf());
    CHECK(images[2].arch == 80);

    CHECK_FALSE(parse_fatbin("", images, error));
    CHECK_FALSE(parse_fatbin(std::string(64, 'x'), images, error));
    std::string truncated = container(entry(2, 90, cubin));
    truncated.resize(truncated.size() - 4);
    CHECK_FALSE(parse_fatbin(truncated, images, error));
    std::string lying = container(entry(2, 90, cubin));
    lying[8] = '\x7f';  // the container claims more than the section holds
    CHECK_FALSE(parse_fatbin(lying, images, error));
    CHECK(error.find("beyond") != std::string::npos);
}

TEST_CASE("imports: the allow-list with exclusions, the rubric's additions and prohibitions, the shims") {
    AuditRules rules;
    rules.allowed_imports = parse_glob_list("cuda*\n!cudaGetDriverEntryPoint*\n!cudalabs_*\nprintf\n_ZSt4cout\n"
                                            "std::chrono::*\ncudalabs::throw_cuda_error\ntypeinfo for *\n");
    rules.forbid_symbols = {"cublas*", "dlopen"};
    std::vector<ElfSymbol> symbols = {
        sym("cudaMalloc", "GLOBAL", false), sym("printf", "GLOBAL", false), sym("_ZSt4cout", "GLOBAL", false, "NOTYPE"),
        sym("_ZNSt6chrono3_V212steady_clock3nowEv", "GLOBAL", false),
        sym("_ZN8cudalabs16throw_cuda_errorE9cudaErrorPKcS2_i", "GLOBAL", false),
        sym("_ZTISt16invalid_argument", "GLOBAL", false, "NOTYPE"), sym("my_own", "GLOBAL", true),
        sym("cudaMemcpy", "GLOBAL", false)};
    CHECK(audit_imports(symbols, rules, {}).empty());

    std::vector<ElfSymbol> bad = {sym("cudaGetDriverEntryPoint", "GLOBAL", false), sym("fopen", "GLOBAL", false),
                                  sym("cudalabs_channel_write", "WEAK", false), sym("cublasSaxpy_v2", "GLOBAL", false),
                                  sym("dlopen", "GLOBAL", false), sym("_ZNSt6thread6detachEv", "GLOBAL", false),
                                  sym("fopen", "GLOBAL", false), sym("fopen", "GLOBAL", true)};
    auto found = audit_imports(bad, rules, {});
    CHECK(found.size() == 6);
    CHECK(has(found, "import", "uses cudaGetDriverEntryPoint, which the grader does not allow"));
    CHECK(has(found, "import", "uses fopen"));
    CHECK(has(found, "import", "uses cudalabs_channel_write"));  // a weak reference is an import too
    CHECK(has(found, "forbidden", "calls cublasSaxpy_v2, which is not allowed in this lab"));
    CHECK(has(found, "forbidden", "calls dlopen"));
    CHECK(has(found, "import", "uses std::thread::detach()"));

    rules.allow_imports = {"fopen"};  // the rubric may add one
    CHECK_FALSE(has(audit_imports(bad, rules, {}), "import", "fopen"));
    // Renamed to a shim: allowed whatever the list says.
    CHECK(audit_imports({sym("cudaMemcpyPeer", "GLOBAL", false)}, AuditRules{}, {"cudaMemcpyPeer"}).empty());
}

TEST_CASE("the committed allow-list: the CUDA runtime and the ordinary library, nothing dangerous") {
    AuditRules rules;
    rules.allowed_imports = load_glob_list("grading/allowed-imports.txt");
    auto allowed = [&](const std::string& name) { return audit_imports({sym(name, "GLOBAL", false)}, rules, {}).empty(); };
    for (const char* ok : {"cudaMalloc", "cudaLaunchKernelExC", "__cudaRegisterFatBinary", "__cudaLaunchKernel",
                           "cudaStreamBeginCapture", "memcpy", "printf", "__printf_chk", "fwrite", "malloc",
                           "__libc_single_threaded", "pthread_once", "__once_proxy", "_ZSt15__once_callable",
                           "sqrtf", "expf", "qsort", "abort", "_Znwm", "_ZdlPvm", "__cxa_throw", "__gxx_personality_v0",
                           "_Unwind_Resume", "__stack_chk_fail", "_ZSt4cout", "_ZSt4cerr",
                           "_ZNSo9_M_insertIdEERSoT_", "_ZStlsISt11char_traitsIcEERSt13basic_ostreamIcT_ES5_PKc",
                           "_ZNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEE6appendEPKc",
                           "_ZSt20__throw_length_errorPKc", "_ZNSt16invalid_argumentC1EPKc",
                           "_ZNSt6chrono3_V212steady_clock3nowEv",
                           "_ZSt21ios_base_library_initv",  // <iostream> with GCC 13 and later
                           "_ZN8cudalabs16throw_cuda_errorE9cudaErrorPKcS2_i"}) {
        CAPTURE(ok);
        CHECK(allowed(ok));
    }
    for (const char* no : {"open", "fopen", "write", "read", "close", "dup2", "fcntl", "ioctl", "mmap", "mprotect", "kill",
                           "signal", "ptrace", "syscall", "fork", "execve", "system", "popen", "clone", "pthread_create",
                           "dlopen", "dlsym", "dlvsym", "getenv", "setenv", "environ", "truncate", "login",
                           "stdin", "stdout", "stderr", "_exit", "_Exit", "quick_exit", "at_quick_exit", "on_exit",
                           "program_invocation_name", "__progname", "getauxval", "__libc_argv",
                           "cudaGetDriverEntryPoint", "cudaGetDriverEntryPointByVersion", "cudaLibraryLoadData",
                           "cudaIpcOpenMemHandle", "cudaGetExportTable", "cudaMemcpy2DToArray", "cudalabs_channel_write",
                           "cudalabs_trace_flush", "cuMemcpyDtoH_v2",
                           "_ZNSt6thread15_M_start_threadESt10unique_ptrINS_6_StateESt14default_deleteIS1_EEPFvvE",
                           "_ZNSt14basic_ofstreamIcSt11char_traitsIcEEC1EPKcSt13_Ios_Openmode",
                           "_ZNSt13basic_filebufIcSt11char_traitsIcEE4openEPKcSt13_Ios_Openmode",
                           // the harness's own functions: a student could turn its checks off
                           "_ZN8cudalabs22enable_output_trackingEb", "_ZN8cudalabs21enable_buffer_checksEb",
                           "_ZN8cudalabs18take_buffer_faultsEv", "_ZN8cudalabs7channel5writeENS0_10RecordTypeERKNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE",
                           // graph nodes and memory pools that move data past the shims
                           "cudaGraphAddNode", "cudaGraphAddNode_v2", "cudaGraphExecNodeSetParams", "cudaMemPoolCreate"}) {
        CAPTURE(no);
        CHECK_FALSE(allowed(no));
    }
    // The grading shims' table names only CUDA copies the list allows anyway.
    for (const auto& rn : load_import_renames("grading/shimmed-imports.txt")) {
        CAPTURE(rn.first);
        CHECK(allowed(rn.first));
    }
}

TEST_CASE("definitions: main, the interface, kernels named like the harness's, forbidden libraries") {
    const std::set<std::string> interface = {"_Z15vector_add_hostPKfS0_Pfi", "_Z17vector_add_simplePKfS0_PfiP11CUstream_st"};
    std::vector<ElfSymbol> good = {sym("_Z15vector_add_hostPKfS0_Pfi", "GLOBAL", true),
                                   sym("_Z17vector_add_simplePKfS0_PfiP11CUstream_st", "GLOBAL", true),
                                   sym("counter", "GLOBAL", true, "OBJECT"), sym("write", "WEAK", true),
                                   sym("cudaMalloc", "GLOBAL", false)};
    CHECK(audit_definitions(good, {"_Z3addPKfS0_Pfi"}, interface, {"_Z6poisonPfm"}).empty());

    std::vector<ElfSymbol> bad = {sym("main", "GLOBAL", true), sym("_Z15vector_add_hostPKfS0_Pfi", "LOCAL", true)};
    auto found = audit_definitions(bad, {"_Z6poisonPfm"}, interface, {"_Z6poisonPfm"});
    CHECK(has(found, "main", "the file defines main(): the lab's driver owns main"));
    CHECK(has(found, "interface", "does not define vector_add_host(float const*, float const*, float*, int)"));
    CHECK(has(found, "interface", "vector_add_simple"));
    CHECK(has(found, "kernel", "the kernel poison(float*, unsigned long) has the name of a kernel of the lab's driver"));
    CHECK(found.size() == 4);

    const std::vector<std::string> forbid = {"thrust*", "cub", "cublas*"};
    std::vector<ElfSymbol> lib = {
        // what thrust::transform leaves in an object (nvcc 13): cub:: functions and kernels
        sym("_ZN3cub17CUB_300001_SM_90011DeviceCountEv", "WEAK", true),
        sym("_ZN6thrust20THRUST_300001_SM_900_NS6system6detail10sequential3seqE", "WEAK", true, "OBJECT"),
        sym("cublasSaxpy_v2", "GLOBAL", false)};
    found = audit_forbidden_definitions(lib, {"_ZN3cub17CUB_300001_SM_9006detail11EmptyKernelIvEEvv"}, forbid);
    CHECK(found.size() == 2);  // the function and the kernel; a header's variable and an import are not definitions
    CHECK(has(found, "forbidden", "contains cub::CUB_300001_SM_900::DeviceCount"));
    CHECK(has(found, "forbidden", "has the kernel cub::CUB_300001_SM_900::detail::EmptyKernel<void>"));
    CHECK(audit_forbidden_definitions(good, {"_Z4cubePf"}, forbid).empty());
}

TEST_CASE("localization: only the interface stays global; imports go to the shims") {
    const std::set<std::string> interface = {"_Z15vector_add_hostPKfS0_Pfi"};
    std::vector<ElfSymbol> symbols = {sym("_Z15vector_add_hostPKfS0_Pfi", "GLOBAL", true), sym("write", "WEAK", true),
                                      sym("_Z3addPfi", "GLOBAL", true), sym("helper", "LOCAL", true),
                                      sym("cudaMemcpy", "GLOBAL", false), sym("cudaFree", "GLOBAL", false)};
    CHECK(symbols_to_keep_global(symbols, interface) == std::vector<std::string>{"_Z15vector_add_hostPKfS0_Pfi"});
    const std::vector<std::pair<std::string, std::string>> table = {{"cudaMemcpy", "cudalabs_shim_cudaMemcpy"},
                                                                    {"cudaMemcpyAsync", "cudalabs_shim_cudaMemcpyAsync"}};
    CHECK(renames_to_apply(symbols, table) == std::vector<std::pair<std::string, std::string>>{table[0]});
    CHECK(renames_to_apply({sym("cudaMemcpy", "GLOBAL", true)}, table).empty());  // its own, not an import

    std::vector<ElfSymbol> after = {sym("_Z15vector_add_hostPKfS0_Pfi", "GLOBAL", true), sym("write", "LOCAL", true),
                                    sym("cudalabs_shim_cudaMemcpy", "GLOBAL", false)};
    CHECK(check_localized(after, interface, table).empty());
    auto found = check_localized({sym("_ZZ6sharedvE1s", "UNIQUE", true, "OBJECT"), sym("cudaMemcpy", "GLOBAL", false)},
                                 interface, table);
    CHECK(has(found, "object", "the symbol shared()::s of the file could not be made local"));
    CHECK(has(found, "object", "cudaMemcpy could not be redirected"));
}

TEST_CASE("what the compiler read: by real path, staged copies only, system roots") {
    std::string dep = "obj/student.o : labs/01/vector_add.cu \\\n  /usr/include/stdio.h common/check.h \\\n"
                      "  /tmp/with\\ space.h\n";
    auto deps = parse_depfile(dep);
    REQUIRE(deps.size() == 4);
    CHECK(deps[0] == "labs/01/vector_add.cu");
    CHECK(deps[3] == "/tmp/with space.h");
    CHECK(parse_depfile("x.o: a.h b.h\n") == std::vector<std::string>{"a.h", "b.h"});

    Tree t;
    IncludeRules rules = t.rules();
    const std::string sys = t.root + "/sys";
    CHECK(audit_dependencies({"labs/01/vector_add.cu", "labs/01/vector_add.h", "common/check.h", sys + "/stdio.h",
                              "labs/01/../../common/check.h"},
                             rules)
              .empty());
    CHECK(has(audit_dependencies({"notes.h"}, rules), "include", "notes.h, which is"));  // in the stage, not a staged header
    CHECK(has(audit_dependencies({sys + "/../elsewhere/solution.cu"}, rules), "include", "outside"));
    CHECK(has(audit_dependencies({"labs/01/missing.h"}, rules), "include", "cannot be found"));
    symlink((t.root + "/elsewhere/solution.cu").c_str(), (sys + "/innocent.h").c_str());
    CHECK(has(audit_dependencies({sys + "/innocent.h"}, rules), "include", "solution.cu, outside"));
    rules.system_roots = {t.root + "/sy"};  // a prefix of a folder's name is not the folder
    CHECK(has(audit_dependencies({sys + "/stdio.h"}, rules), "include"));

    rules = t.rules();
    std::vector<IncludeEntry> includes = {{"common/check.h", "labs/01/vector_add.cu", 3, true},
                                          {t.root + "/elsewhere/solution.cu", "labs/01/vector_add.cu", 4, true},
                                          {t.root + "/elsewhere/solution.cu", "common/check.h", 9, false},
                                          {"<command-line>", "", 0, false}};
    auto found = audit_includes(includes, rules);
    REQUIRE(found.size() == 1);  // each file once
    CHECK(has(found, "include", "solution.cu (line 4), which is outside the lab's headers and the system headers"));
    // The file including itself: what it reads the second time would pass for a header's lines.
    found = audit_includes({{"labs/01/vector_add.h", "labs/01/vector_add.cu", 1, true},
                            {"labs/01/vector_add.cu", "labs/01/vector_add.cu", 12, true}},
                           rules);
    REQUIRE(found.size() == 1);
    CHECK(has(found, "include", "the file includes itself (line 12)"));
}

// nvcc 13 --dryrun of a student compile, shortened: the two preprocessing passes come back
// without their -o, writing to stdout; nothing else is a preprocessing pass.
const char* const kDryrun = R"(#$ _NVVM_BRANCH_=nvvm
#$ INCLUDES="-I/usr/local/cuda/bin/../targets/x86_64-linux/include"  
#$ gcc -std=c++17 -D__CUDA_ARCH__=900 -D__CUDA_ARCH_LIST__=900 -E -x c++  -DCUDA_DOUBLE_MATH_FUNCTIONS -D__CUDACC__ -D__NVCC__  -O3 -I"common" -I"labs/01-vector-add" "-I/usr/local/cuda/bin/../targets/x86_64-linux/include"   "-isystem" "/usr/local/cuda/bin/../targets/x86_64-linux/include/cccl"  -include "cuda_runtime.h" -m64 "labs/01-vector-add/vector_add.cu" -o "obj/vector_add.cpp1.ii" 
#$ gcc -std=c++17 -D__CUDA_ARCH_LIST__=900 -E -x c++ -D__CUDACC__ -D__NVCC__  -O3 -I"common" -I"labs/01-vector-add" -include "cuda_runtime.h" -m64 "labs/01-vector-add/vector_add.cu" -o "obj/vector_add.cpp4.ii" 
#$ -- Filter Dependencies -- > obj/student.d
#$ "$CICC_PATH/cicc" --c++17 --orig_src_file_name "labs/01-vector-add/vector_add.cu" "obj/vector_add.cpp1.ii" -o "obj/vector_add.ptx"
#$ ptxas -arch=sm_90 -m64  "obj/vector_add.ptx"  -o "obj/vector_add.cubin" 
#$ gcc -std=c++17 -D__CUDA_ARCH__=900 -c -x c++ -O3 -I"common" -m64 "obj/vector_add.cudafe1.cpp" -o "obj/student.o" 
)";

TEST_CASE("a failed compile's preprocessing passes, from nvcc --dryrun") {
    auto passes = preprocess_commands(kDryrun);
    REQUIRE(passes.size() == 2);
    CHECK(passes[0].front() == "gcc");
    CHECK(contains(passes[0], "-D__CUDA_ARCH__=900"));
    CHECK(contains(passes[0], "-Icommon"));
    CHECK(contains(passes[0], "-I/usr/local/cuda/bin/../targets/x86_64-linux/include"));
    CHECK(contains(passes[0], "labs/01-vector-add/vector_add.cu"));
    CHECK_FALSE(contains(passes[0], "-o"));
    CHECK_FALSE(contains(passes[0], "obj/vector_add.cpp1.ii"));
    CHECK_FALSE(contains(passes[1], "-D__CUDA_ARCH__=900"));
    // Anything a shell would have to interpret: no pass at all, rather than a wrong one.
    CHECK(preprocess_commands("#$ gcc -E `rm -rf x` a.cu -o a.ii\n").empty());
    CHECK(preprocess_commands("#$ gcc -E \"a b.cu\" -o a.ii\n") == std::vector<std::vector<std::string>>{{"gcc", "-E", "a b.cu"}});
}

TEST_CASE("a sandbox that fails to run the compiler is the grader's error, not the student's compile error") {
    Tree t;
    BuildSpec spec = sandboxed_build(t);
    // It cannot start at all.
    spec.nvcc = t.root + "/no-such-sandbox";
    CHECK_THROWS_WITH_AS(build_submission(spec, TrustedSymbols{}), doctest::Contains("could not start the compiler in the sandbox"),
                         BuildEnvironmentError);
    // bubblewrap started and failed before the compiler ran.
    spec.nvcc = fake_compiler(t, "echo 'bwrap: setting up uid map: Permission denied' >&2; exit 1");
    CHECK_THROWS_WITH_AS(build_submission(spec, TrustedSymbols{}), doctest::Contains("the sandbox failed before the compiler ran"),
                         BuildEnvironmentError);
    // The compiler ran and failed: the student's compile error, with its messages.
    spec.nvcc = fake_compiler(t, "echo 'vector_add.cu(3): error: expected a \";\"' >&2; exit 2");
    BuildResult r = build_submission(spec, TrustedSymbols{});
    CHECK_FALSE(r.compiled);
    CHECK(r.rejected.find("compile error") != std::string::npos);
}

TEST_CASE("a compile that timed out is made once more with four times its limit before the timeout is the student's") {
    Tree t;
    BuildSpec spec = sandboxed_build(t);
    spec.compile_timeout_s = 1;  // (a quick compile stays within it on a loaded machine)
    // The compiler is a script that counts its compiles in `count` (not the failed compile's
    // --dryrun, which fails at once), then does what `compile_body` says.
    const std::string count = t.root + "/count";
    std::string compile_body;
    auto compiler = [&] {
        return fake_compiler(t, "case \" $* \" in *' --dryrun '*) exit 1;; esac; n=$(cat " + count + " 2>/dev/null || echo 0); n=$((n+1)); echo $n > " +
                                    count + "; " + compile_body);
    };
    auto compiles = [&] { return std::stoi(read_file(count)); };

    SUBCASE("slow only the first time (a busy machine): the second compile's verdict counts, and the feedback says why") {
        compile_body = "if [ $n = 1 ]; then exec sleep 20; fi; echo 'vector_add.cu(3): error: expected a \";\"' >&2; exit 2";
        spec.nvcc = compiler();
        const BuildResult r = build_submission(spec, TrustedSymbols{});
        CHECK(compiles() == 2);
        CHECK(r.rejected.find("compile error") != std::string::npos);
        CHECK(r.note.find("took longer than 1 s (a busy machine can do that), so it was made once more with 4 s") != std::string::npos);
        CHECK(r.compile_s >= 1);
    }
    SUBCASE("slow both times: the timeout is the student's, and it says the longer limit") {
        compile_body = "exec sleep 20";
        spec.nvcc = compiler();
        const BuildResult r = build_submission(spec, TrustedSymbols{});
        CHECK(compiles() == 2);
        CHECK_FALSE(r.compiled);
        CHECK(r.rejected.find("compilation took longer than 1 s, and again when given 4 s: this is your file's doing") !=
              std::string::npos);
        CHECK(r.note.empty());
        CHECK(r.compile_s >= 5);
        CHECK(r.compile_s < 19);
    }
    SUBCASE("a compile within its limit is made once") {
        compile_body = "echo 'vector_add.cu(3): error: expected a \";\"' >&2; exit 2";
        spec.nvcc = compiler();
        const BuildResult r = build_submission(spec, TrustedSymbols{});
        CHECK(compiles() == 1);
        CHECK(r.note.empty());
    }
    SUBCASE("put off (the grader's class): a compile that timed out ends the build, to be made again later") {
        spec.compile_retry = TimeoutRetry::Later;
        compile_body = "exec sleep 20";
        spec.nvcc = compiler();
        const BuildResult r = build_submission(spec, TrustedSymbols{});
        CHECK(compiles() == 1);
        CHECK(r.put_off);
        CHECK_FALSE(r.compiled);
        CHECK(r.rejected.empty());
        CHECK(r.compile_s < 19);
    }
    SUBCASE("made later: the longer limit at once, and the feedback says when") {
        spec.compile_retry = TimeoutRetry::Longer;
        compile_body = "sleep 2; echo 'vector_add.cu(3): error: expected a \";\"' >&2; exit 2";
        spec.nvcc = compiler();
        BuildResult r = build_submission(spec, TrustedSymbols{});
        CHECK(compiles() == 1);
        CHECK_FALSE(r.put_off);
        CHECK(r.rejected.find("compile error") != std::string::npos);
        CHECK(r.note.find("so it was made once more with 4 s, after the rest of the class") != std::string::npos);
        compile_body = "exec sleep 20";
        spec.nvcc = compiler();
        r = build_submission(spec, TrustedSymbols{});
        CHECK(compiles() == 2);
        CHECK(r.rejected.find("compilation took longer than 1 s, and again when given 4 s: this is your file's doing") !=
              std::string::npos);
    }
}

TEST_CASE("an audit tool that timed out is run once more with four times its limit before the file is rejected") {
    Tree t;
    // The tool counts its runs in `count` and prints "ok" unless `body` ends it first.
    const std::string count = t.root + "/count", tool = t.root + "/slow-tool";
    auto install = [&](const std::string& body) {
        t.write("/slow-tool", "#!/bin/sh\nn=$(cat " + count + " 2>/dev/null || echo 0); n=$((n+1)); echo $n > " + count + "\n" + body +
                                  "\necho ok\n");
        chmod(tool.c_str(), 0755);
        unlink(count.c_str());
    };
    auto runs = [&] { return std::stoi(read_file(count)); };
    AuditTools tools{t.root, 1};  // a 1 s limit, 4 s the second time

    SUBCASE("slow only the first time (a busy machine): the second run's output counts, and a note says why") {
        install("if [ $n = 1 ]; then exec sleep 20; fi");
        CHECK(tools.output({tool, t.root + "/student.o"}) == "ok\n");
        CHECK(runs() == 2);
        REQUIRE(tools.notes.size() == 1);
        CHECK(tools.notes[0] == "the audit's " + tool + " of student.o took longer than 1 s (a busy machine can do that), "
                                "so it was made once more with 4 s");
    }
    SUBCASE("slow both times: an error that names both limits") {
        install("exec sleep 20");
        const double t0 = steady_now();
        CHECK_THROWS_WITH_AS(tools.output({tool, "student.o"}), doctest::Contains("student.o: it took longer than 1 s, and again when given 4 s"),
                             std::runtime_error);
        CHECK(seconds_since(t0) < 19);
        CHECK(runs() == 2);
        CHECK(tools.notes.empty());
    }
    SUBCASE("a tool within its limit runs once; one that fails is not run again") {
        install("");
        CHECK(tools.output({tool, "student.o"}) == "ok\n");
        CHECK(runs() == 1);
        install("echo 'not an ELF file' >&2; exit 1");
        CHECK_THROWS_WITH_AS(tools.output({tool, "student.o"}), doctest::Contains("not an ELF file"), std::runtime_error);
        CHECK(runs() == 1);
        CHECK(tools.notes.empty());
    }
}

TEST_CASE("start-up code: only nvcc's registration and <iostream>'s own initializer run before main(), nothing after") {
    const std::string sections =
        "  [ 7] .bss              NOBITS          0000000000000000 000f50 000025 00  WA  0   0  8\n"
        "  [14] .text.startup     PROGBITS        0000000000000000 0082c0 000097 00  AX  0   0 16\n";
    const std::string symbols =
        "    29: 0000000000000000    97 FUNC    LOCAL  DEFAULT   14 _ZL24__sti____cudaRegisterAllv\n"
        "    30: 0000000000000020     8 OBJECT  LOCAL  DEFAULT    7 _ZL20__cudaFatCubinHandle\n"
        "    42: 0000000000000070    39 FUNC    LOCAL  DEFAULT   14 _GLOBAL__sub_I_x\n"
        "    43: 0000000000000024     1 OBJECT  LOCAL  DEFAULT    7 _ZStL8__ioinit\n";
    const std::string init_array =
        "Relocation section '.rela.init_array' at offset 0xace8 contains 2 entries:\n"
        "    Offset             Info             Type               Symbol's Value  Symbol's Name + Addend\n"
        "0000000000000000  0000001100000001 R_X86_64_64            0000000000000000 .text.startup + 0\n"
        "0000000000000008  0000001100000001 R_X86_64_64            0000000000000000 .text.startup + 70\n";
    const std::string iostream_init =
        "Relocation section '.rela.text.startup' at offset 0xab80 contains 5 entries:\n"
        "    Offset             Info             Type               Symbol's Value  Symbol's Name + Addend\n"
        "0000000000000074  0000000300000002 R_X86_64_PC32          0000000000000000 .bss + 20\n"
        "000000000000007c  0000006700000004 R_X86_64_PLT32         0000000000000000 _ZNSt8ios_base4InitC1Ev - 4\n"
        "0000000000000083  000000690000002a R_X86_64_REX_GOTPCRELX 0000000000000000 _ZNSt8ios_base4InitD1Ev - 4\n"
        "000000000000008e  0000006a00000002 R_X86_64_PC32          0000000000000000 __dso_handle - 4\n"
        "0000000000000093  0000006b00000004 R_X86_64_PLT32         0000000000000000 __cxa_atexit - 4\n";
    const auto secs = parse_readelf_sections(sections);
    const auto syms = parse_readelf_symbols(symbols);
    REQUIRE(parse_readelf_relocations(init_array).size() == 2);
    CHECK(parse_readelf_relocations(init_array)[1].addend == 0x70);
    CHECK(audit_startup_code(parse_readelf_relocations(init_array + iostream_init), syms, secs).empty());
    // The same initializer also building an object of the file's own (operator new): refused.
    const std::string own = iostream_init +
                            "0000000000000088  0000006c00000004 R_X86_64_PLT32         0000000000000000 _Znwm - 4\n";
    auto found = audit_startup_code(parse_readelf_relocations(init_array + own), syms, secs);
    REQUIRE(found.size() == 1);
    CHECK(found[0].detail.find("before main() (_GLOBAL__sub_I_x)") != std::string::npos);
    // A PC-relative reference 4 bytes short of the cubin handle is not the iostream object.
    const std::string other_object = "Relocation section '.rela.text.startup' at offset 0xab80 contains 1 entry:\n"
                                     "0000000000000074  0000000300000002 R_X86_64_PC32          0000000000000000 .bss + 1c\n";
    CHECK(audit_startup_code(parse_readelf_relocations(init_array + other_object), syms, secs).size() == 1);
    // Anything in .fini_array runs after main(), where the sanitizer's leak report is made.
    const std::string fini = "Relocation section '.rela.fini_array' at offset 0x1fe8 contains 1 entry:\n"
                             "0000000000000000  0000000200000001 R_X86_64_64            0000000000000000 .text.startup + 0\n";
    found = audit_startup_code(parse_readelf_relocations(fini), syms, secs);
    REQUIRE(found.size() == 1);
    CHECK(found[0].detail.find("after main()") != std::string::npos);
}

TEST_CASE("a line marker after blanks in the preprocessed text is a macro's, and is refused") {
    // gcc writes its markers at the line's start; `#define HASH #` then `HASH 1 "x" 1 3` comes out
    // after a blank, and the compiler's next passes would take it for a marker.
    const PreprocessedText p = parse_preprocessed(
        "# 1 \"f.cu\"\nint a;\n # 1 \"/usr/include/stdlib.h\" 1 3 4\nint hidden = system(\"ls\");\n");
    CHECK(p.indented_markers == std::vector<int>{2});  // the line of f.cu it stands on
    const std::vector<Finding> found = audit_indented_markers(p.indented_markers);
    CHECK(has(found, "line", "a macro of the file writes a line directive"));
    CHECK(parse_preprocessed(kPreprocessed).indented_markers.empty());
    CHECK(audit_indented_markers({}).empty());
}
