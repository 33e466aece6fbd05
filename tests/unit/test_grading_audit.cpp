// The grader's integrity checks (grading/src/audit.h): main, includes, embedding, forbidden
// names and symbols, harness symbols, the compiler's dependency list.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>

#include "grading/src/audit.h"

using namespace grading;

namespace {
AuditRules lab_rules() {
    AuditRules r;
    r.allowed_local_headers = {"vector_add.h", "check.h", "random.h"};
    r.forbid_includes = {"cublas*.h", "thrust/*"};
    r.forbid_symbols = {"cublas*", "dlopen", "system"};
    return r;
}
bool has_rule(const std::vector<Finding>& f, const std::string& rule, const std::string& text = "") {
    for (const Finding& x : f)
        if (x.rule == rule && x.detail.find(text) != std::string::npos) return true;
    return false;
}
}  // namespace

TEST_CASE("comments and strings are blanked, lines and code kept") {
    std::string src = "int a; // main(\n/* system( */ int b = 1'000;\nconst char* s = \"main(\\\" x\";\nauto r = R\"x(main()\n)x\";\n";
    std::string out = strip_comments_and_strings(src);
    CHECK(out.size() == src.size());
    CHECK(out.find("main") == std::string::npos);
    CHECK(out.find("system") == std::string::npos);
    CHECK(out.find("int b = 1'000;") != std::string::npos);
    CHECK(std::count(out.begin(), out.end(), '\n') == std::count(src.begin(), src.end(), '\n'));
    std::string keep = strip_comments_and_strings("#include \"x.h\" // c\n", false);
    CHECK(keep.find("\"x.h\"") != std::string::npos);
    CHECK(keep.find("// c") == std::string::npos);
}

TEST_CASE("a clean lab file passes the source audit") {
    std::string src = "#include \"vector_add.h\"\n#include <cstdio>\n#include <vector>\n"
                      "__global__ void k(float* c) { c[0] = 1; }  // not main()\n"
                      "void vector_add_host(const float*, const float*, float*, int) { printf(\"main()\"); }\n";
    CHECK(audit_source(src, lab_rules()).empty());
}

TEST_CASE("main, foreign includes, embedding and forbidden names are found") {
    auto rules = lab_rules();
    CHECK(has_rule(audit_source("int main() { return 0; }\n", rules), "main", "line 1"));
    CHECK(has_rule(audit_source("int\nmain\n(int, char**) {}\n", rules), "main"));
    CHECK(has_rule(audit_source("int x = main();\n", rules), "main"));
    CHECK_FALSE(has_rule(audit_source("int domain(); int x = s.main(); int y = p->main();\n", rules), "main"));
    CHECK(has_rule(audit_source("#include \"../../solutions/01-vector-add/vector_add.cu\"\n", rules), "include", "reaches outside"));
    CHECK(has_rule(audit_source("#include </work/main/solutions/x.cu>\n", rules), "include", "reaches outside"));
    CHECK(has_rule(audit_source("  #  include \"helper.cu\"\n", rules), "include", "only the lab's headers"));
    CHECK(has_rule(audit_source("#define P \"x.cu\"\n#include P\n", rules), "include", "line 2"));
    CHECK(has_rule(audit_source("#include <cublas_v2.h>\n", rules), "forbidden", "cublas_v2.h"));
    CHECK(has_rule(audit_source("#include <thrust/reduce.h>\n", rules), "forbidden"));
    CHECK(has_rule(audit_source("#inc\\\nlude \"../x.cu\"\n", rules), "include"));  // line continuation
    CHECK(has_rule(audit_source("asm(\".incbin \\\"/etc/passwd\\\"\");\n", rules), "embed"));
    CHECK(has_rule(audit_source("void f() { cublasSgemm(0); }\n", rules), "forbidden", "cublasSgemm"));
    CHECK(has_rule(audit_source("void f() { system(\"ls\"); }\n", rules), "forbidden", "'system'"));
    CHECK(audit_source("// cublasSgemm in a comment\nconst char* s = \"dlopen\";\n", rules).empty());
    CHECK(audit_source("#include \"check.h\"  // the harness\n", rules).empty());
}

TEST_CASE("nm output parses, and the symbol audit finds main, harness and C symbols, forbidden calls") {
    std::string nm =
        "0000000000000010 T _Z18add_one_per_threadPKfS0_Pfi\n"
        "00000000000003a0 T _Z45__device_stub__Z18add_one_per_threadPKfS0_PfiPKfS0_Pfi\n"
        "0000000000000580 T _Z15vector_add_hostPKfS0_Pfi\n"
        "0000000000000000 W _ZN8cudalabs12check_valuesIffEENS_11CheckResultEPKT_PKT0_mNS_9ToleranceEm\n"
        "0000000000000000 t _ZL24__sti____cudaRegisterAllv\n"
        "                 U __cudaLaunchKernel\n"
        "                 U cudaMalloc\n";
    auto symbols = parse_nm(nm);
    REQUIRE(symbols.size() == 7);
    CHECK(symbols[5].type == 'U');
    CHECK(symbols[5].name == "__cudaLaunchKernel");
    std::set<std::string> trusted = {"_ZN8cudalabs9todo_hintEv", "main"};
    CHECK(audit_symbols(symbols, trusted, lab_rules()).empty());
    CHECK(kernels_defined(symbols) == std::set<std::string>{"_Z18add_one_per_threadPKfS0_Pfi"});

    auto bad = parse_nm("0 T main\n0 T _ZN8cudalabs9todo_hintEv\n0 T write\n0 D cudaGetLastError\n"
                        "0 T _ZN8cudalabs3fooEv\n U cublasSaxpy_v2\n U dlopen\n0 T allowed_c_name\n");
    AuditRules rules = lab_rules();
    rules.forbid_symbols.push_back("dlopen");
    rules.allow_symbols = {"allowed_*"};
    auto found = audit_symbols(bad, trusted, rules);
    CHECK(has_rule(found, "main"));
    CHECK(has_rule(found, "symbol", "cudalabs::todo_hint()"));  // demangled for the student
    CHECK(has_rule(found, "symbol", "the C symbol write"));
    CHECK(has_rule(found, "symbol", "the C symbol cudaGetLastError"));
    CHECK(has_rule(found, "symbol", "cudalabs::foo()"));
    CHECK(has_rule(found, "forbidden", "cublasSaxpy_v2"));
    CHECK(has_rule(found, "forbidden", "dlopen"));
    CHECK_FALSE(has_rule(found, "symbol", "allowed_c_name"));
    CHECK(found.size() == 7);
}

TEST_CASE("extern \"C\" kernels are recognised by their stubs too") {
    auto symbols = parse_nm("0 T add\n0 T _Z17__device_stub__addPfi\n0 T helper\n");
    CHECK(kernels_defined(symbols) == std::set<std::string>{"add"});
}

TEST_CASE("dependency files parse, and only the lab's files and system headers may be read") {
    std::string dep = "student.o : labs/01-vector-add/vector_add.cu \\\n  /usr/include/stdio.h common/check.h \\\n"
                      "  /tmp/with\\ space.h\n";
    auto deps = parse_depfile(dep);
    REQUIRE(deps.size() == 4);
    CHECK(deps[0] == "labs/01-vector-add/vector_add.cu");
    CHECK(deps[3] == "/tmp/with space.h");
    CHECK(parse_depfile("x.o: a.h b.h\n") == std::vector<std::string>{"a.h", "b.h"});

    CHECK(audit_dependencies({"/usr/include/stdio.h"}, {"/usr/include"}).empty());
    auto f = audit_dependencies({"/usr/include/../../etc/hostname"}, {"/usr/include"});
    REQUIRE(f.size() == 1);
    CHECK(f[0].rule == "dependency");
    CHECK(audit_dependencies({"/etc/hostname"}, {"/usr/include", "/etc/host"}).size() == 1);  // a prefix is not a folder
}

TEST_CASE("kernel names compare the same mangled or demangled") {
    CHECK(kernel_key("_Z18add_one_per_threadPKfS0_Pfi") == "add_one_per_thread");
    CHECK(kernel_key("add_one_per_thread(const float *, const float *, float *, int)") == "add_one_per_thread");
    CHECK(kernel_key("_ZN2ns4tileILi32EEEvPf") == kernel_key("void ns::tile<32>(float*)"));
    CHECK(kernel_key("add") == "add");
    CHECK(kernel_key("_Z3addPfi") != kernel_key("_Z3subPfi"));
}
