// Strings: the grader's small text helpers, and text from outside the grader made valid UTF-8
// where it enters (a program's or a tool's output, a file's or a folder's name, a roster), so that
// nothing after it can fail on a stray byte. Depends on nothing of the grader. Host-only:
// unit-tested with g++.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace grading {

std::string trim(const std::string& s);  // without leading and trailing spaces, tabs, CR and LF
std::vector<std::string> split_ws(const std::string& s);
// The parts of `s` between each `sep`, each trimmed ("a, b,," gives "a", "b", "", "").
std::vector<std::string> split_list(const std::string& s, char sep = ',');
std::string join(const std::vector<std::string>& v, const std::string& sep);
std::string replace_all(std::string s, const std::string& from, const std::string& to);
bool starts_with(const std::string& s, const std::string& head);
bool ends_with(const std::string& s, const std::string& tail);
// At most `max` bytes of `s` (never half a UTF-8 character), with a note of how many were left out.
std::string clip(const std::string& s, size_t max);
std::string elapsed_text(double seconds);  // "3m07s"
std::string number_text(double v);         // the shortest form (%g): "4", "0.5", "180"
std::string random_hex(size_t bytes);

// ---- UTF-8 ----

// The code point at s[i] and its length in bytes; length 0: not valid UTF-8 there (a stray or
// truncated byte, an overlong form, a surrogate or a value past U+10FFFF).
std::pair<uint32_t, size_t> decode_utf8(const std::string& s, size_t i);
// Back from `pos` to the start of a UTF-8 character.
size_t char_boundary(const std::string& s, size_t pos);
// The offset of the first byte that is not part of valid UTF-8; std::string::npos: none.
size_t first_invalid_utf8(const std::string& s);
bool is_valid_utf8(const std::string& s);
// `s` as valid UTF-8: each byte that is not part of a valid character becomes the four
// characters \xNN (hex, lower case). Valid text is returned as it is.
std::string valid_utf8(const std::string& s);
// Text in Windows-1252 (what Excel on Windows writes as "CSV") as UTF-8. False, with `bad` the
// offset of the byte, where a byte has no character in it (0x81, 0x8D, 0x8F, 0x90, 0x9D).
bool windows1252_to_utf8(const std::string& in, std::string& out, size_t& bad);
// UTF-16 text (`big_endian` or little), its byte-order mark already taken off, as UTF-8. False,
// with `bad` the offset, at an unpaired surrogate or an odd last byte.
bool utf16_to_utf8(const std::string& in, bool big_endian, std::string& out, size_t& bad);
// The 1-based line of `text` that holds offset `at`.
size_t line_of_offset(const std::string& text, size_t at);

// A byte string as JSON without loss: itself where it is valid UTF-8, else {"hex": its bytes}
// (JSON strings hold only UTF-8: a path with a Latin-1 byte must still name its file); and back
// (throws nlohmann::json::exception where `j` is neither).
nlohmann::json lossless_json(const std::string& bytes);
std::string lossless_bytes(const nlohmann::json& j);
// JSON as text (dump, `indent` < 0: one line). It never throws: a string that is not valid UTF-8
// (none should be: text is made valid where it enters) has each bad byte replaced by U+FFFD.
std::string json_text(const nlohmann::json& j, int indent = -1);

// ---- a submission's id ----

// The grader's id for a submission named `name` (its folder's or its file's name), used as the
// file name of its feedback and results: the letters, digits, '.', '_' and '-' of the name as they
// are, any other byte (and a leading '.') as %XX, so that two names never give one id; a name
// whose id would pass 100 bytes keeps its first 80 and a hash of the whole (after '~', which no
// escaped name holds).
std::string submission_id(const std::string& name);

}  // namespace grading
