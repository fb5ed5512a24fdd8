// parse.cpp -- strict JSON parsing (decisions §3) on RapidJSON 1.1: a SAX handler forwards
// events into a Document while tracking keys per open object (duplicates at any depth),
// nesting depth, and re-validating every string as strict UTF-8, because RapidJSON 1.1
// turns a lone low-surrogate escape ("\udc00") into invalid UTF-8 without complaint.
// Numbers arrive as raw text and are converted by a second reader (see number_text). The
// budget of parse.h (depth, members per object, values, number length, bytes) is counted on
// the fly. Every text is read in place (RapidJSON's insitu mode): strings and keys are
// decoded inside the text, so nothing is copied a character at a time. A request body is its
// own buffer and the document points into it; any other text is first copied, whole, into a
// scratch buffer, and the document copies each string out of it. The runs of a string with
// nothing to unescape are found 16 bytes at a time (InPlace below).
#include "common/json/parse.h"

#include <algorithm>
#include <cstring>
#include <deque>
#include <string>
#include <unordered_set>

#include <rapidjson/error/en.h>
#include <rapidjson/reader.h>

#include "common/json/scan.h"
#include "common/json/utf8.h"
#include "common/types/error.h"

namespace pouch::json {
namespace {

// RapidJSON's InsituStringStream with the end of the text known: the reader reads and writes
// through it as through InsituStringStream (the text is followed by kRequestPadding NULs, the
// first of which ends it), and plain_run() below uses the end to scan without reading past it.
struct InPlace {
    using Ch = char;
    InPlace(char* text, size_t size) : src_(text), dst_(nullptr), head_(text), end_(text + size) {}

    Ch Peek() const { return *src_; }
    Ch Take() { return *src_++; }
    size_t Tell() const { return static_cast<size_t>(src_ - head_); }

    void Put(Ch c) { *dst_++ = c; }
    Ch* PutBegin() { return dst_ = src_; }
    size_t PutEnd(Ch* begin) { return static_cast<size_t>(dst_ - begin); }
    void Flush() {}
    Ch* Push(size_t count) {
        Ch* begin = dst_;
        dst_ += count;
        return begin;
    }
    void Pop(size_t count) { dst_ -= count; }

    Ch* src_;
    Ch* dst_;
    Ch* head_;
    Ch* end_;  // the first NUL after the text
};

// The first byte at or after p that ends a string's plain run: '"', '\\' or a control
// character (below 0x20; the NUL at `end` is one). Never reads at or past `end`.
inline const char* plain_run_end(const char* p, const char* end) {
    return p + next_to_escape(std::string_view(p, static_cast<size_t>(end - p)), 0);
}

}  // namespace
}  // namespace pouch::json

// RapidJSON's string loop calls ScanCopyUnescapedString(is, os) before each character when it
// does not validate UTF-8 (a text of ASCII alone, see kFlags below); its own version is a no-op
// but for its SSE builds' streams, whose aligned loads read past the end of the text. Ours moves
// the whole plain run at once (not at all before the string's first escape, where the source
// and the destination are the same bytes), and leaves the character that ends it to the loop,
// which reads it exactly as before: what is accepted and refused, and where, is unchanged.
template <>
template <>
inline void
rapidjson::GenericReader<rapidjson::UTF8<>, rapidjson::UTF8<>, rapidjson::CrtAllocator>::
    ScanCopyUnescapedString<pouch::json::InPlace, pouch::json::InPlace>(pouch::json::InPlace& is,
                                                                        pouch::json::InPlace& os) {
    const char* stop = pouch::json::plain_run_end(is.src_, is.end_);
    size_t n = static_cast<size_t>(stop - is.src_);
    if (os.dst_ != is.src_) std::memmove(os.dst_, is.src_, n);
    os.dst_ += n;
    is.src_ += n;
}

template <>
struct rapidjson::StreamTraits<pouch::json::InPlace> {
    enum { copyOptimization = 1 };  // the reader works on a local copy, as for InsituStringStream
};

namespace pouch::json {
namespace {

using rapidjson::SizeType;

// Keys quoted in messages are cut, so a megabyte key does not become a megabyte message.
std::string short_key(std::string_view k) {
    std::string_view p = utf8_prefix(k, 64);
    std::string out(p);
    if (p.size() < k.size()) out += "...";
    return out;
}

// RapidJSON 1.1's full-precision strtod calls __builtin_clzll(0) (undefined behaviour, found
// by tests/fuzz/fuzz_jcs) when the significand is zero but the exponent or fraction is long,
// e.g. "0e40" or "0.000...0" with more than 22 zeros. Such a literal is exactly ±0.0, so it is
// rewritten to "0.0"/"-0.0" (still a double, as RapidJSON types it); other text is unchanged.
std::string number_text(std::string_view raw) {
    size_t end = raw.find_first_of("eE");
    std::string_view mantissa = raw.substr(0, end);
    bool zero = mantissa.find_first_of("123456789") == std::string_view::npos;
    if (!zero || (end == std::string_view::npos && mantissa.find('.') == std::string_view::npos))
        return std::string(raw);
    return !raw.empty() && raw[0] == '-' ? "-0.0" : "0.0";
}

// RapidJSON 1.1's full-precision strtod also indexes its table of cached powers of ten past
// its end (undefined behaviour, found by tests/fuzz/fuzz_jcs) for a long significand with an
// exponent near the edge of the double range, e.g. 95 digits and "e+304". A number whose
// first significant digit lies beyond 10^308 or below 10^-324 is no double at all (it
// overflows, or underflows to zero), so it is refused before RapidJSON sees it. `raw` is a
// JSON number literal (the reader checked its grammar).
bool within_double_range(std::string_view raw) {
    size_t end = raw.find_first_of("eE");
    std::string_view mantissa = raw.substr(0, end);
    long long exponent = 0;
    if (end != std::string_view::npos) {
        size_t i = end + 1;
        bool negative = i < raw.size() && raw[i] == '-';
        if (i < raw.size() && (raw[i] == '-' || raw[i] == '+')) ++i;
        for (; i < raw.size(); ++i) exponent = std::min(exponent * 10 + (raw[i] - '0'), 100000LL);
        if (negative) exponent = -exponent;
    }
    size_t first = mantissa.find_first_of("123456789");
    if (first == std::string_view::npos) return true;  // zero (number_text)
    size_t point = mantissa.find('.');
    if (point == std::string_view::npos) point = mantissa.size();
    // The power of ten of the first significant digit, as written.
    long long magnitude = first < point ? static_cast<long long>(point - first) - 1
                                        : -static_cast<long long>(first - point);
    long long power = magnitude + exponent;
    return power <= 308 && power >= -324;
}

// Receives the one number of number_text() and adds it to the document.
struct NumberForward : rapidjson::BaseReaderHandler<rapidjson::UTF8<>, NumberForward> {
    explicit NumberForward(rapidjson::Document& d) : doc(d) {}
    bool Default() { return false; }
    bool Int(int i) { return doc.Int(i); }
    bool Uint(unsigned u) { return doc.Uint(u); }
    bool Int64(int64_t i) { return doc.Int64(i); }
    bool Uint64(uint64_t u) { return doc.Uint64(u); }
    bool Double(double d) { return doc.Double(d); }
    rapidjson::Document& doc;
};

void append_pointer_segment(std::string& out, std::string_view token) {
    out += '/';
    for (char c : token) {
        if (c == '~')
            out += "~0";
        else if (c == '/')
            out += "~1";
        else
            out += c;
    }
}

class StrictHandler {
  public:
    // The reader decodes strings and keys inside the text, which lasts the whole parse.
    // copy_strings: the document copies each one (a memcpy) and is charged for it, so it owns
    // its strings (parse_strict: a value copied out of it into another document stays valid
    // after it, as RapidJSON 1.1 copies a non-owned string by its pointer); otherwise they stay
    // in the request body, which the caller keeps, and cost nothing more.
    StrictHandler(rapidjson::Document& doc, bool require_object, bool copy_strings,
                  const Limits& limits)
        : doc_(doc),
          require_object_(require_object),
          copy_strings_(copy_strings),
          limits_(limits) {}

    const std::string& error() const { return error_; }

    bool Null() { return value(false) && doc_.Null(); }
    bool Bool(bool b) { return value(false) && doc_.Bool(b); }
    bool Int(int i) { return value(false) && doc_.Int(i); }
    bool Uint(unsigned u) { return value(false) && doc_.Uint(u); }
    bool Int64(int64_t i) { return value(false) && doc_.Int64(i); }
    bool Uint64(uint64_t u) { return value(false) && doc_.Uint64(u); }
    bool Double(double d) { return value(false) && doc_.Double(d); }
    bool RawNumber(const char* s, SizeType n, bool) {
        if (!value(false)) return false;
        if (n > kMaxNumberChars)
            return fail("a number literal longer than " + std::to_string(kMaxNumberChars) +
                        " characters");
        if (!within_double_range(std::string_view(s, n))) return fail("number out of range");
        std::string text = number_text(std::string_view(s, n));
        rapidjson::StringStream stream(text.c_str());
        NumberForward forward(doc_);
        rapidjson::Reader reader;
        if (reader.Parse<rapidjson::kParseFullPrecisionFlag>(stream, forward).IsError())
            return fail("number out of range");
        return true;
    }
    bool String(const char* s, SizeType n, bool) {
        return value(false) && utf8(s, n) && string_bytes(n) && doc_.String(s, n, copy_strings_);
    }

    bool StartObject() {
        if (!value(true) || !enter()) return false;
        frames_.emplace_back(true);
        return doc_.StartObject();
    }
    bool Key(const char* s, SizeType n, bool) {
        if (!utf8(s, n) || !charge(kValueBytes) || !string_bytes(n)) return false;
        Frame& f = frames_.back();
        std::string_view key(s, n);
        if (f.keys.size() >= limits_.max_members) {
            std::string where = pointer(frames_.size() - 1);
            return fail("an object has more than " + std::to_string(limits_.max_members) +
                        " members" +
                        (where.empty() ? std::string(" (the top-level object)") : " at " + where));
        }
        // Read in place, the key's bytes stay put in the text for the whole parse.
        if (!f.keys.insert(key).second) {
            std::string where = pointer(frames_.size() - 1);
            return fail("duplicate key \"" + short_key(key) + "\"" +
                        (where.empty() ? std::string(" in the top-level object") : " at " + where));
        }
        f.key = key;
        return doc_.Key(s, n, copy_strings_);
    }
    bool EndObject(SizeType members) {
        frames_.pop_back();
        return doc_.EndObject(members);
    }
    bool StartArray() {
        if (!value(false) || !enter()) return false;
        frames_.emplace_back(false);
        return doc_.StartArray();
    }
    bool EndArray(SizeType elements) {
        frames_.pop_back();
        return doc_.EndArray(elements);
    }

  private:
    struct Frame {
        explicit Frame(bool is_object) : object(is_object) {}
        bool object;
        std::unordered_set<std::string_view> keys;
        std::string_view key;  // the member being read (objects)
        long index = -1;       // the element being read (arrays)
    };

    // Called before every value; the root must be an object when required.
    bool value(bool is_object) {
        if (++values_ > limits_.max_values)
            return fail("the document holds more than " + std::to_string(limits_.max_values) +
                        " values");
        if (!charge(kValueBytes)) return false;
        if (frames_.empty()) {
            if (require_object_ && !is_object) return fail("body is not a JSON object");
            return true;
        }
        if (!frames_.back().object) ++frames_.back().index;
        return true;
    }
    bool enter() {
        if (static_cast<int>(frames_.size()) >= limits_.max_depth)
            return fail("JSON nested deeper than " + std::to_string(limits_.max_depth) + " levels");
        return true;
    }
    // The document's own memory (parse.h, Limits::max_bytes).
    bool charge(size_t bytes) {
        bytes_ += bytes;
        if (bytes_ <= limits_.max_bytes) return true;
        return fail("the document needs more than " + std::to_string(limits_.max_bytes) +
                    " bytes of memory");
    }
    bool string_bytes(SizeType n) { return !copy_strings_ || charge(static_cast<size_t>(n) + 1); }
    bool utf8(const char* s, SizeType n) {
        if (utf8_valid(std::string_view(s, n))) return true;
        return fail("invalid UTF-8 in a string (lone surrogate or bad byte sequence)");
    }
    bool fail(std::string msg) {
        error_ = std::move(msg);
        return false;
    }
    // JSON Pointer of the container at frames_[depth] (its position in its parents).
    std::string pointer(size_t depth) const {
        std::string out;
        for (size_t i = 0; i < depth; ++i) {
            if (frames_[i].object)
                append_pointer_segment(out, frames_[i].key);
            else
                append_pointer_segment(out, std::to_string(frames_[i].index));
        }
        return out;
    }

    rapidjson::Document& doc_;
    bool require_object_;
    bool copy_strings_;
    const Limits& limits_;
    std::deque<Frame> frames_;
    size_t values_ = 0;
    size_t bytes_ = 0;
    std::string error_;
};

[[noreturn]] void refuse(const rapidjson::ParseResult& result, const StrictHandler& handler) {
    std::string at = " at offset " + std::to_string(result.Offset());
    switch (result.Code()) {
        case rapidjson::kParseErrorTermination:
            throw invalid_json(handler.error());
        case rapidjson::kParseErrorStringInvalidEncoding:
            throw invalid_json("invalid UTF-8" + at);
        case rapidjson::kParseErrorStringUnicodeSurrogateInvalid:
            throw invalid_json("invalid UTF-8: lone surrogate in a \\u escape" + at);
        case rapidjson::kParseErrorDocumentEmpty:
            throw invalid_json("empty body, expected a JSON object");
        default:
            throw invalid_json("malformed JSON" + at + ": " +
                               rapidjson::GetParseError_En(result.Code()));
    }
}

// The reader treats a NUL byte as the end of input, which would hide trailing bytes; a raw
// NUL is never valid JSON, so it is refused up front.
void refuse_nul(std::string_view text) {
    if (size_t nul = text.find('\0'); nul != std::string_view::npos)
        throw invalid_json("malformed JSON at offset " + std::to_string(nul) + ": NUL byte");
}

// Iterative: the reader keeps its own heap stack instead of recursing per level.
// kParseValidateEncodingFlag only where a byte is over 0x7F: a text of ASCII alone cannot hold
// invalid UTF-8 but through a \u escape, which the handler's utf8() check of every key and
// string refuses either way (RapidJSON's per-character validation was most of a client's
// parse of a page of envelopes).
constexpr unsigned kFlags = rapidjson::kParseIterativeFlag | rapidjson::kParseNumbersAsStringsFlag;
constexpr unsigned kValidating = kFlags | rapidjson::kParseValidateEncodingFlag;

// Reads `size` bytes at `text` in place, followed by kRequestPadding NULs (RapidJSON's reader
// stops at the first; its UTF-8 validation takes every trail byte of a sequence before judging
// it, so a text ending in a multi-byte lead byte ("\xF0") is read, and written back, up to 3
// bytes past its end). No string of the document reaches into the padding.
void parse_in_place(rapidjson::Document& doc, char* text, size_t size, bool require_object,
                    bool copy_strings, const Limits& limits) {
    const bool ascii = all_ascii(std::string_view(text, size));
    StrictHandler handler(doc, require_object, copy_strings, limits);
    rapidjson::ParseResult result;
    auto generate = [&](rapidjson::Document&) {
        InPlace stream(text, size);
        rapidjson::Reader reader;
        result = ascii ? reader.Parse<kFlags | rapidjson::kParseInsituFlag>(stream, handler)
                       : reader.Parse<kValidating | rapidjson::kParseInsituFlag>(stream, handler);
        return !result.IsError();
    };
    doc.Populate(generate);
    if (result.IsError()) refuse(result, handler);
}

// Any other text: copied once, whole, into a scratch buffer read in place; the document copies
// each string out of it (a memcpy, where RapidJSON's own reader went a character at a time).
rapidjson::Document parse(std::string_view text, bool require_object, const Limits& limits) {
    refuse_nul(text);
    rapidjson::Document doc;
    std::string scratch;
    scratch.reserve(text.size() + kRequestPadding);
    scratch.append(text).append(kRequestPadding, '\0');
    parse_in_place(doc, scratch.data(), text.size(), require_object, true, limits);
    return doc;
}

}  // namespace

rapidjson::Document parse_strict(std::string_view body, const Limits& limits) {
    return parse(body, true, limits);
}

rapidjson::Document parse_strict_any(std::string_view text, const Limits& limits) {
    return parse(text, false, limits);
}

rapidjson::Document parse_request(std::string& body, size_t max_bytes) {
    refuse_nul(body);
    Limits limits;
    limits.max_bytes = max_bytes;
    rapidjson::Document doc;
    const size_t size = body.size();
    body.append(kRequestPadding, '\0');  // before any pointer into it is taken
    try {
        parse_in_place(doc, body.data(), size, true, false, limits);
    } catch (...) {
        body.resize(size);
        throw;
    }
    body.resize(size);  // shrinking never moves the bytes the document points at
    return doc;
}

}  // namespace pouch::json
