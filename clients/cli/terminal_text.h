// terminal_text.h -- text that crosses the terminal's edge. defang() makes text that came from
// the server or another member (messages, names, labels, URLs) safe to print: no control or
// bidi character reaches the terminal (decisions §15). label_problem() checks a device name
// typed here against §15's label rule before it is sent.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace pouch::cli {

// C0 (U+0000-001F), DEL (U+007F), C1 (U+0080-009F) and the bidi controls U+061C,
// U+200E-200F, U+202A-202E, U+2066-2069.
bool is_control_or_bidi(uint32_t cp);

// `s` with every control or bidi character replaced by U+FFFD, and every byte that is not
// part of valid UTF-8 (overlong forms, surrogates and code points above U+10FFFF included)
// replaced by '?'. Everything else is kept as it is.
std::string defang(std::string_view s);

// A JSON text as `--json` prints it: every character outside ASCII written as a \u escape, so
// that a name another member chose (a C1 control, a bidi override) reaches the terminal as
// plain ASCII; controls are escaped by JSON itself. Text that is not valid JSON is defanged.
std::string ascii_json(std::string_view json);

// `s` cut to at most `n` Unicode scalar values (never inside a character), for columns.
std::string first_chars(std::string_view s, size_t n);
std::string last_chars(std::string_view s, size_t n);
size_t char_count(std::string_view s);  // scalar values of valid UTF-8 (others count 1 each)

// Why `name` is not a valid device name / roster label, or nullopt when it is: valid UTF-8 in
// NFC, 1 to 64 scalar values, no control or bidi character, no '/' or '\', no white space at
// either end (decisions §15).
std::optional<std::string> label_problem(std::string_view name);

// `s` in NFC; nullopt when it is not valid UTF-8.
std::optional<std::string> nfc(std::string_view s);

}  // namespace pouch::cli
