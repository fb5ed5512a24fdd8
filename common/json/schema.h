// schema.h -- declarative request validation (decisions §3). One schema per request type,
// written once next to its handler; validate() walks the document and throws Error (bad_input)
// `validation_failed` with a JSON Pointer `field` at the first violation. Unknown members
// are rejected. Lengths are in Unicode code points.
//
//   namespace js = pouch::json::schema;
//   static const js::Node kSignup = js::object({
//       js::req("email", js::string().max_chars(254)),
//       js::req("password", js::string().min_chars(10).max_chars(1024)),
//       js::opt("reason", js::string().max_chars(500).nullable()),
//   });
//   js::validate(doc, kSignup);
#pragma once

#include <functional>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <rapidjson/document.h>

#include "common/types/limits.h"

namespace pouch::json::schema {

using pouch::kMaxSafeInt;  // common/types/limits.h

struct Spec;
struct Member;

// A schema node: a value type, copied cheaply (shared immutable spec).
class Node {
public:
    explicit Node(std::shared_ptr<Spec> s) : s_(std::move(s)) {}
    // Modifiers return a modified copy.
    Node min_chars(size_t n) const;
    Node max_chars(size_t n) const;
    Node min_items(size_t n) const;
    Node max_items(size_t n) const;
    Node min(long long v) const;
    Node max(long long v) const;
    Node nullable() const;
    Node distinct() const;  // arrays of strings: no repeated value
    // Extra check on a string value (read in place, never copied); `what` completes
    // "must be ...".
    Node check(std::function<bool(std::string_view)> pred, std::string what) const;
    const Spec& spec() const { return *s_; }

private:
    std::shared_ptr<Spec> s_;
};

Node string();                                  // any string (bounds via min/max_chars)
Node b64url();                                  // b64url alphabet, no padding
Node uuid();  // interface "Shared formats"; validate() rewrites it to lower case (§13)
Node datetime();                                // RFC 3339 with zone
Node one_of(std::initializer_list<const char*> values);
Node integer();                                 // within ±kMaxSafeInt; an integer literal
Node boolean();
Node array(Node item);
Node object(std::initializer_list<Member> members);
Node jwk();  // {kty:"EC", crv:"P-256", x, y} 43-char b64url each, on the curve, no others
// A device name or roster label (label.h, decisions §15). Unlike every other rule, a string
// that breaks it is 400 `invalid_field` (not validation_failed), with the same pointer.
Node label();

struct Member {
    std::string name;
    Node node;
    bool required;
};
inline Member req(std::string name, Node n) { return {std::move(name), std::move(n), true}; }
inline Member opt(std::string name, Node n) { return {std::move(name), std::move(n), false}; }

// Throws Error(bad_input, "validation_failed", message, pointer) (`invalid_field` for a
// label()). Every value a uuid() node
// accepts is rewritten in place to its canonical lower-case form (decisions §13), so handlers
// compare ids as plain strings. Hash or verify a signed body before calling this.
void validate(rapidjson::Document& doc, const Node& schema);

// For operations that carry no data: no body, or `{}`. Anything else is refused like an
// unknown field (invalid_json / validation_failed).
void validate_empty_body(std::string_view body);

}  // namespace pouch::json::schema
