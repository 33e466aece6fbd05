// Line directives in a submission's own file (grading/src/compile/line_directives.h): every spelling
// the preprocessor accepts is found, and nothing else is. Where g++ is on the machine, each case
// is also handed to the real preprocessor: whatever it takes for a line directive, the scanner
// must find.
#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <string>
#include <vector>

#include "grading/src/compile/line_directives.h"
#include "grading_fixtures.h"

using namespace grading;

namespace {

// Spellings of a line directive, each setting the line to 900 so that __LINE__ after it shows
// whether the real preprocessor took it for one, and the line its '#' stands on.
struct Case {
    const char* text;
    int line;
};
const Case kDirectives[] = {
    {"#line 900 \"/usr/include/stdio.h\"\nint x;\n", 1},
    {"int a;\n# 900 \"cuda_runtime.h\" 1 3\nint x;\n", 2},
    {"# line 900\nint x;\n", 1},
    {"#\tline 900\nint x;\n", 1},
    {"# 900 \"x\"\nint x;\n", 1},
    {"%:line 900\nint x;\n", 1},
    {"%: 900\nint x;\n", 1},
    {"#/**/line 900\nint x;\n", 1},
    {"# /*x*/ 900\nint x;\n", 1},
    {"#li\\\nne 900\nint x;\n", 1},
    {"#\\\nline 900\nint x;\n", 1},
    {"\\\n#line 900\nint x;\n", 2},
    {"#line\\\n 900\nint x;\n", 1},
    {"#lin\\   \ne 900\nint x;\n", 1},  // blanks between the backslash and the line end
    {"   #line 900\nint x;\n", 1},
    {"/* c */ #line 900\nint x;\n", 1},
    {"/* a\n comment */ #line 900\nint x;\n", 2},
    {"int a; /*\n*/ #line 900\nint x;\n", 2},  // not a directive to g++, but its output is one to cudafe++
    {"int a;\r\n#line 900\r\nint x;\r\n", 2},
    {"int a; // c\r#line 900\rint x;\r", 2},  // a lone CR ends a line
    {"#li\\\r\nne 900\r\nint x;\r\n", 1},
    {"\xEF\xBB\xBF#line 900\nint x;\n", 1},
    {"# /*\n*/ line 900\nint x;\n", 1},
    {"int a; // a comment\n#line 900\nint x;\n", 2},
    {"const char* s = \"a\\\"b\"; /* \" */\n#line 900\nint x;\n", 2},
    {"int n = 1'000'000; /* ' */\n#line 900\nint x;\n", 2},
    {"auto s = R\"x(a)\" /* )x\";\n#line 900\nint x;\n", 2},
    {"auto s = R\"(a)\"R\"(b\n#line 900\nint x;\n", 2},       // a suffix R, then an ordinary string
    {"auto s = \"a\"R\"(b\n#line 900\nint x;\n", 2},          // the same after an ordinary string
    {"auto s = 1R\"(\n#line 900\nint x;\n", 2},               // R is part of the number
    {"auto s = $R\"(\n#line 900\nint x;\n", 2},               // $R is one identifier
    {"#include <x/*y>\n#line 900 // */\nint x;\n", 2},       // a header name is one token
    {"#if __has_include(<x/*y>)\n#endif\n#line 900 // */\nint x;\n", 3},
    {"#if 0\n#line 900\n#endif\nint x;\n", 2},
    {"int f(int);\nint y = f(\n#line 900\n1);\n", 3},
};

// Correct files: a '#' in a string, a comment, a character, other directives, "line" in code.
const char* const kAccepted[] = {
    "#include <cstdio>\n#pragma once\n#if 1\nint line = 900;\n#endif\n",
    "const char* s = \"#line 900\";\nconst char* t = \"\\\n#line 900\";\n",
    "// #line 900\n/*\n#line 900\n*/\nint x;\n",
    "auto s = R\"(\n#line 900\n)\";\nauto t = R\"x(\n)\"\n#line 900\n)x\";\n",
    "auto s = u8R\"--(\n# 900 \"x\"\n)--\"_suffix;\n",
    "char c = '#'; int line = 1; int y = line + 900;\n",
    "#define STR(x) #x\nconst char* s = STR(line 900);\nvoid f() {\n#pragma unroll\n for (;;) {}\n}\n",
    "int a[2] = {1, 2}; int b = a<:0:>; %:define X 1\n",
    "%:%: \n",
    "#define CAT(a, b) a%:%:b\n",
    "#error 900 lines\n",
    "#ifdef line\n#endif\n#ifndef __LINE__\n#endif\nint l = __LINE__;\n",
    "int x = 1; # 900\n",  // not first on its line: no directive (and not C++ either)
};

// What g++ -E makes of `text`: whether it took a line directive (the __LINE__ of a line after
// it is 900 or more), or nullptr when g++ cannot be run.
const char* preprocessor_verdict(const std::string& text) {
    grading_fixtures::TempDir dir{"cudalabs-linedir"};
    const std::string file = dir.path + "/case.cpp";
    if (FILE* f = std::fopen(file.c_str(), "wb")) {
        const std::string probed = text + "\nint probe = __LINE__;\n";
        std::fwrite(probed.data(), 1, probed.size(), f);
        std::fclose(f);
    }
    FILE* p = popen(("g++ -std=c++17 -x c++ -E " + file + " 2>/dev/null").c_str(), "r");
    if (!p) return nullptr;
    std::string out;
    char buf[4096];
    for (size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
    const int rc = pclose(p);
    if (out.empty() && rc != 0) return nullptr;
    const size_t probe = out.find("probe = ");
    if (probe == std::string::npos) return nullptr;
    return std::atoi(out.c_str() + probe + 8) >= 900 ? "directive" : "none";
}

}  // namespace

TEST_CASE("every spelling of a line directive is found, on the line of its '#'") {
    for (const Case& c : kDirectives) {
        const std::string text = c.text;
        CAPTURE(text);
        CHECK(line_directive_lines(text) == std::vector<int>{c.line});
    }
}

TEST_CASE("a '#' in a string, comment or character, other directives and a 'line' identifier are not line directives") {
    for (const char* accepted : kAccepted) {
        const std::string text = accepted;
        CAPTURE(text);
        CHECK(line_directive_lines(text).empty());
        CHECK(audit_line_directives(text).empty());
    }
}

TEST_CASE("what the real preprocessor takes for a line directive, the scanner finds") {
    if (!preprocessor_verdict("int x;\n")) {
        MESSAGE("g++ cannot be run here: the cases were not compared with the real preprocessor");
        return;
    }
    int taken = 0;
    for (const Case& c : kDirectives) {
        const std::string text = c.text;
        CAPTURE(text);
        const char* verdict = preprocessor_verdict(text);
        if (verdict && std::string(verdict) == "directive") {
            ++taken;
            CHECK_FALSE(line_directive_lines(text).empty());
        }
    }
    // All but the group #if leaves out, the '#' after a comment that spans lines and tokens,
    // and the #include of a file that is not there (the preprocessor stops).
    CHECK(taken == static_cast<int>(std::size(kDirectives)) - 3);
    for (const char* accepted : kAccepted) {
        const std::string text = accepted;
        CAPTURE(text);
        const char* verdict = preprocessor_verdict(text);
        REQUIRE(verdict != nullptr);
        CHECK(std::string(verdict) == "none");
    }
}

TEST_CASE("trigraphs are read both ways: on in ISO modes before C++17") {
    CHECK(line_directive_lines("?\?=line 900\nint x;\n") == std::vector<int>{1});
    CHECK(line_directive_lines("#li?\?/\nne 900\n") == std::vector<int>{1});
    // "??/" before a quote ends no string where trigraphs are off: both readings are taken.
    CHECK(line_directive_lines("const char* s = \"?\?/\";\n#line 900\n") == std::vector<int>{2});
}

TEST_CASE("the finding names the lines, once") {
    const std::vector<Finding> one = audit_line_directives("int a;\n#line 900 \"/usr/include/stdio.h\"\n");
    REQUIRE(one.size() == 1);
    CHECK(one[0].rule == "line");
    CHECK(one[0].detail.find("on line 2:") != std::string::npos);
    const std::vector<Finding> three = audit_line_directives("#line 5\n# 6\n%:line 7\n");
    REQUIRE(three.size() == 1);
    CHECK(three[0].detail.find("on lines 1, 2 and 3:") != std::string::npos);
}
