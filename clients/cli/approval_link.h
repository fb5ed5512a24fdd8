// approval_link.h -- what `pouch login` shows for a pending login (decisions §15, docs/CLIENT-
// FORMAT.md "The approval link"): the link it builds itself from its own server base, the
// request id and a fragment with its public keys and a nonce the service never sees; the
// 12-digit confirm code over them; the key fingerprint; and the only authorize_url it accepts.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace pouch::cli {

struct Coordinates {
    std::string x, y;  // 43 b64url characters each
};

struct ApprovalPrompt {
    std::string link;         // base/cli/approve?request=ID#keys=sx.sy.ex.ey&n=N
    std::string code;         // dddd-dddd-dddd (crypto::confirm_code_v2)
    std::string fingerprint;  // the first 16 characters of sign_jkt, grouped by 4
};

// A request id the CLI puts into a link: a UUID in its canonical lower-case form.
bool valid_request_id(std::string_view id);

// base = ServerUrl::base (no trailing slash); nonce = 16 bytes.
ApprovalPrompt approval_prompt(std::string_view base, std::string_view request_id,
                               const Coordinates& sign, const Coordinates& enc,
                               std::string_view nonce);

// The authorize_url the server must answer: base/cli/approve?request=ID, byte for byte.
std::string expected_authorize_url(std::string_view base, std::string_view request_id);

// An approval link taken apart, as the approving side reads it (pouch-testweb, the stand-in
// for the web page): exactly base/cli/approve?request=ID#keys=sx.sy.ex.ey&n=N with a
// canonical request id, four 43-character coordinates and a 22-character nonce of 16 bytes.
// nullopt for anything else. The coordinates are not checked to be on the curve here.
struct ParsedApprovalLink {
    std::string base, request_id;
    Coordinates sign, enc;
    std::string nonce;  // 16 bytes
};
std::optional<ParsedApprovalLink> parse_approval_link(std::string_view link);

}  // namespace pouch::cli
