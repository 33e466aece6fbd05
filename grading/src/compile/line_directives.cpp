#include "compile/line_directives.h"

#include <algorithm>
#include <cctype>
#include <set>

namespace grading {

namespace {

// Where a spelling could be read two ways, the reading to take this time.
struct Reading {
    bool trigraphs = false;     // "??=" is '#', "??/" a backslash (ISO modes before C++17)
    bool header_names = false;  // "<...>" after #include or __has_include( is one token
};

// The text after translation phases 1 and 2: every line end a '\n', splices removed, trigraphs
// replaced where the reading asks; each character keeps its physical line and its offset in the
// file (a raw string's end is looked for in the file itself: the compiler undoes phases 1 and 2
// inside raw strings).
struct LogicalText {
    std::string text;
    std::vector<int> line;
    std::vector<size_t> offset;
};

char trigraph_of(char c) {
    static const std::string from = "=/'()!<>-", to = "#\\^[]|{}~";
    const size_t k = from.find(c);
    return k == std::string::npos ? '\0' : to[k];
}

bool blank(char c) { return c == ' ' || c == '\t' || c == '\f' || c == '\v'; }

LogicalText logical_text(const std::string& src, bool trigraphs) {
    LogicalText phase1;
    size_t i = src.compare(0, 3, "\xEF\xBB\xBF") == 0 ? 3 : 0;
    int line = 1;
    while (i < src.size()) {
        char c = src[i];
        size_t length = 1;
        if (c == '\r') {
            c = '\n';
            if (i + 1 < src.size() && src[i + 1] == '\n') length = 2;
        } else if (trigraphs && c == '?' && i + 2 < src.size() && src[i + 1] == '?' && trigraph_of(src[i + 2])) {
            c = trigraph_of(src[i + 2]);
            length = 3;
        }
        phase1.text += c;
        phase1.line.push_back(line);
        phase1.offset.push_back(i);
        line += c == '\n';
        i += length;
    }
    // A backslash, blanks (GCC allows them, with a warning) and a line end are removed.
    LogicalText out;
    for (size_t k = 0; k < phase1.text.size(); ++k) {
        if (phase1.text[k] == '\\') {
            size_t j = k + 1;
            while (j < phase1.text.size() && blank(phase1.text[j])) ++j;
            if (j < phase1.text.size() && phase1.text[j] == '\n') {
                k = j;
                continue;
            }
        }
        out.text += phase1.text[k];
        out.line.push_back(phase1.line[k]);
        out.offset.push_back(phase1.offset[k]);
    }
    return out;
}

class DirectiveScanner {
public:
    DirectiveScanner(const LogicalText& t, const std::string& file, Reading how) : t_(t), file_(file), how_(how) {}

    void scan(std::set<int>& found) {
        while (i_ < t_.text.size()) {
            const char c = t_.text[i_];
            if (c == '\n') {
                line_start_ = true;
                ++i_;
            } else if (blank(c) || starts_comment()) {
                skip_blanks_and_comments();
            } else if (line_start_ && hash_length() > 0) {
                line_start_ = false;
                directive(found);
            } else {
                line_start_ = false;
                token();
            }
        }
    }

private:
    const LogicalText& t_;
    const std::string& file_;
    const Reading how_;
    size_t i_ = 0;
    bool line_start_ = true;

    char at(size_t k) const { return k < t_.text.size() ? t_.text[k] : '\0'; }
    bool starts_comment() const { return at(i_) == '/' && (at(i_ + 1) == '*' || at(i_ + 1) == '/'); }
    size_t hash_length() const { return at(i_) == '#' ? 1 : at(i_) == '%' && at(i_ + 1) == ':' ? 2 : 0; }

    // Blanks and comments up to the line's end. A block comment that spans lines counts as a
    // line end too: what follows it may be read as the first thing on its line.
    void skip_blanks_and_comments() {
        while (i_ < t_.text.size()) {
            if (blank(at(i_))) {
                ++i_;
            } else if (at(i_) == '/' && at(i_ + 1) == '/') {
                while (i_ < t_.text.size() && at(i_) != '\n') ++i_;
            } else if (at(i_) == '/' && at(i_ + 1) == '*') {
                const size_t end = t_.text.find("*/", i_ + 2);
                const size_t stop = end == std::string::npos ? t_.text.size() : end + 2;
                if (std::find(t_.text.begin() + i_, t_.text.begin() + stop, '\n') != t_.text.begin() + stop)
                    line_start_ = true;
                i_ = stop;
            } else {
                return;
            }
        }
    }

    std::string identifier() {
        const size_t start = i_;
        while (i_ < t_.text.size() && ident_char(at(i_))) ++i_;
        return t_.text.substr(start, i_ - start);
    }

    // At '#' or "%:", the first thing on its line: a line directive is "line" or a number next.
    void directive(std::set<int>& found) {
        const int line = t_.line[i_];
        i_ += hash_length();
        skip_blanks_and_comments();
        if (std::isdigit(static_cast<unsigned char>(at(i_)))) {
            found.insert(line);
        } else if (ident_start(at(i_))) {
            const std::string name = identifier();
            if (name == "line") found.insert(line);
            if (how_.header_names && (name == "include" || name == "include_next" || name == "import")) {
                skip_blanks_and_comments();
                header_name();
            }
        }
        line_start_ = false;
    }

    // "<...>" on one line is one token; else '<' alone.
    void header_name() {
        if (at(i_) != '<') return;
        const size_t close = t_.text.find_first_of(">\n", i_ + 1);
        i_ = close != std::string::npos && t_.text[close] == '>' ? close + 1 : i_ + 1;
    }

    // A literal's user-defined suffix is part of it ("a"R"(x)" is "a"R then an ordinary string).
    void suffix() {
        if (ident_start(at(i_))) identifier();
    }

    // A string or character literal: to its closing quote, or to the line's end.
    void quoted() {
        i_ = quoted_end(t_.text, i_);
        suffix();
    }

    // At the '"' of R"delim(...)delim": its end is found in the file itself. Where the delimiter
    // is not one (or was spelled across a splice), or the string never ends, the compiler
    // refuses it; it is read as an ordinary string, which keeps every later line in view.
    void raw_string() {
        size_t open = i_ + 1;
        while (open < t_.text.size() && open - i_ <= 17 && std::string("( )\\\t\v\f\n\"").find(at(open)) == std::string::npos)
            ++open;
        const bool well_formed = at(open) == '(' && open - i_ <= 17 && t_.offset[open] - t_.offset[i_] == open - i_;
        const std::string close = ")" + t_.text.substr(i_ + 1, open - i_ - 1) + "\"";
        const size_t end = well_formed ? file_.find(close, t_.offset[open] + 1) : std::string::npos;
        if (end == std::string::npos) {
            quoted();
            return;
        }
        const size_t after = static_cast<size_t>(
            std::lower_bound(t_.offset.begin(), t_.offset.end(), end + close.size()) - t_.offset.begin());
        if (std::find(t_.text.begin() + i_, t_.text.begin() + after, '\n') != t_.text.begin() + after) line_start_ = true;
        i_ = after;
        suffix();
    }

    void token() {
        const char c = at(i_);
        if (ident_start(c)) {
            const std::string word = identifier();
            const bool raw = word == "R" || word == "u8R" || word == "uR" || word == "UR" || word == "LR";
            if (raw && at(i_) == '"') {
                raw_string();
            } else if (how_.header_names && (word == "__has_include" || word == "__has_include_next" ||
                                             word == "__has_include__")) {
                skip_blanks_and_comments();
                if (at(i_) != '(') return;
                ++i_;
                skip_blanks_and_comments();
                header_name();
            }
        } else if (std::isdigit(static_cast<unsigned char>(c)) || (c == '.' && std::isdigit(static_cast<unsigned char>(at(i_ + 1))))) {
            i_ = number_end(t_.text, i_);
        } else if (c == '"' || c == '\'') {
            quoted();
        } else {
            ++i_;
        }
    }
};

}  // namespace

std::vector<int> line_directive_lines(const std::string& source) {
    std::set<int> found;
    for (const bool trigraphs : {false, true}) {
        const LogicalText text = logical_text(source, trigraphs);
        for (const bool header_names : {false, true}) DirectiveScanner(text, source, {trigraphs, header_names}).scan(found);
    }
    return {found.begin(), found.end()};
}

std::vector<Finding> audit_line_directives(const std::string& source) {
    const std::vector<int> lines = line_directive_lines(source);
    if (lines.empty()) return {};
    std::string where = (lines.size() == 1 ? "line " : "lines ") + std::to_string(lines[0]);
    for (size_t k = 1; k < lines.size() && k < 5; ++k) where += (k + 1 == lines.size() || k == 4 ? " and " : ", ") + std::to_string(lines[k]);
    if (lines.size() > 5) where += " (and " + std::to_string(lines.size() - 5) + " more)";
    return {{"line", "the file has a line directive (#line, or # followed by a line number) on " + where +
                         ": it would change the file and line the compiler attributes your code to, which the "
                         "grader does not allow; remove it"}};
}

}  // namespace grading
