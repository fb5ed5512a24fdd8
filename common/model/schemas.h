// schemas.h -- request pieces that several groups accept (interface "Key envelope" and
// "Roster statement"), declared once with the bounds of interface.md and decisions §3.
#pragma once

#include "common/json/schema.h"

namespace pouch::model {

namespace js = json::schema;

inline js::Node key_envelope() {
    return js::object({
        js::req("pouch_id", js::uuid()),
        js::req("member_id", js::uuid()),
        js::req("key_gen", js::integer().min(1).max(js::kMaxSafeInt)),
        js::req("hpke_enc", js::b64url().min_chars(1).max_chars(342)),
        js::req("ciphertext", js::b64url().min_chars(1).max_chars(5462)),
        js::req("created_by_member", js::uuid()),
        js::req("signature", js::b64url().min_chars(1).max_chars(342)),
    });
}

// A key grant (docs/SHARING.md §5): one pouch key generation sealed to an account's identity.
inline js::Node key_grant() {
    return js::object({
        js::req("pouch_id", js::uuid()),
        js::req("account_id", js::uuid()),
        js::req("key_gen", js::integer().min(1).max(js::kMaxSafeInt)),
        js::req("hpke_enc", js::b64url().min_chars(1).max_chars(342)),
        js::req("ciphertext", js::b64url().min_chars(1).max_chars(5462)),
        js::req("granted_by", js::uuid()),
        js::req("signature", js::b64url().min_chars(1).max_chars(342)),
    });
}

inline js::Node roster_statement() {
    return js::object({
        js::req("statement", js::b64url().min_chars(1).max_chars(87382)),
        js::req("signature", js::b64url().min_chars(1).max_chars(342)),
    });
}

}  // namespace pouch::model
