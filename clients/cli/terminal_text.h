// terminal_text.h -- text that crosses the terminal's edge. defang() makes text that came from
// the server or another member (messages, names, labels, URLs) safe to print: no control or
// bidi character reaches the terminal (decisions §15). checked_device_name() holds a device
// name typed here to §15's label rule (common/json/label.h, the service's own) before it is
// sent. to_nfc() is the one NFC of the CLI (libunistring).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace pouch::cli {

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

// `typed` (a device name given on the command line as `what`, "--name" or "NAME") in NFC, when
// it then passes the label rule; CliError kExitUsage naming the rule's complaint otherwise.
std::string checked_device_name(std::string_view typed, const std::string& what);

// `s` in NFC; nullopt when it is not valid UTF-8.
std::optional<std::string> to_nfc(std::string_view s);

}  // namespace pouch::cli
