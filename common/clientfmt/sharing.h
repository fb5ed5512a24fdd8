// sharing.h -- the opaque strings of pouches shared between accounts (docs/SHARING.md): the
// account identity statement and its envelopes, the access list, key grants and the safety
// number. The service checks statements with these functions before it stores them; the CLI
// verifies with the same code; the web app has its own (clients/web/src/crypto/format.js) and
// both are held to docs/client-format-vectors.json `sharing`.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <rapidjson/document.h>

#include "common/clientfmt/encoding.h"
#include "common/clientfmt/roster.h"
#include "common/crypto/p256_private.h"

namespace pouch::clientfmt {

// ---- identity (SHARING.md §1) ----------------------------------------------------------

struct IdentityBody {
    std::string account_id;
    std::string genesis_hash;
    std::string by;  // the genesis member
    PublicJwk sign_pub, enc_pub;
    std::string at;
    std::string jcs() const;  // v 1, kind "identity", exactly 8 members
};

SignedStatement sign_identity(const IdentityBody& body,
                              const crypto::P256PrivateKey& genesis_member_key);

// Decodes (b64url of canonical JCS, exactly 8 members, typed); throws FormatError.
IdentityBody decode_identity(std::string_view statement);

// The whole binding: `genesis` is roster statement 0 of the account (a genesis statement whose
// own signature verifies), it hashes to body.genesis_hash, its member_id is body.by, and
// `identity.signature` verifies with its sign_pub. Throws FormatError naming what fails.
IdentityBody verify_identity(const SignedStatement& identity, const SignedStatement& genesis);

struct IdentityEnvelope {
    std::string account_id, member_id, hpke_enc, ciphertext, created_by_member, signature;
    std::string json() const;          // the API object (all six fields)
    std::string signed_bytes() const;  // JCS without `signature`
    static IdentityEnvelope from_json(const rapidjson::Value& v);  // throws FormatError
};

// info = "pouch/identity-envelope/v1" || id(account_id) || id(member_id)
std::string identity_envelope_info(std::string_view account_id, std::string_view member_id);

struct IdentityKeys {
    crypto::P256PrivateKey sign, enc;
};

IdentityEnvelope seal_identity_envelope(std::string_view account_id, std::string_view member_id,
                                        const PublicJwk& member_enc_pub,
                                        const IdentityKeys& identity,
                                        std::string_view creator_member_id,
                                        const crypto::P256PrivateKey& creator_sign_key,
                                        const crypto::P256PrivateKey* ephemeral = nullptr);

// Checks the signature with the creator's key, opens with the member's HPKE key, and requires
// the opened keys' public halves to be `expected`'s. Throws FormatError.
IdentityKeys open_identity_envelope(const IdentityEnvelope& e, const PublicJwk& creator_sign_pub,
                                    const crypto::P256PrivateKey& member_enc_key,
                                    const IdentityBody& expected);

// ---- safety number (SHARING.md §3) -----------------------------------------------------

struct PublicIdentity {
    std::string account_id;
    PublicJwk sign_pub, enc_pub;
};

std::string identity_fingerprint(const PublicIdentity& x);  // 32 bytes
// The 64 bytes fp(P) || fp(Q), ordered by account id. Throws FormatError for one account twice.
std::string safety_number_bytes(const PublicIdentity& a, const PublicIdentity& b);
// "12345 67890 ..." : 12 groups of 5 digits, separated by single spaces.
std::string safety_number(const PublicIdentity& a, const PublicIdentity& b);
// "pouch-sn1:" + b64url(bytes): what the QR code holds.
std::string safety_number_qr_text(const PublicIdentity& a, const PublicIdentity& b);

// ---- access list (SHARING.md §4) -------------------------------------------------------

struct AccessBody {
    std::string pouch_id;
    long long seq = 0;
    std::string prev;
    std::string kind;  // share | role | remove | leave
    std::string by;    // account id
    std::string account_id;
    PublicJwk identity_sign_pub, identity_enc_pub;  // JSON: identity {sign_pub, enc_pub}
    std::string role;                               // read | write | admin
    long long key_gen = 0;
    std::string at;
    std::optional<long long> rotated_to;  // remove and leave only (= key_gen)
    std::string jcs() const;
};

SignedStatement sign_access(const AccessBody& body,
                            const crypto::P256PrivateKey& identity_sign_key);
AccessBody decode_access(std::string_view statement);  // throws FormatError

struct AccessEntry {
    std::string account_id;
    PublicJwk sign_pub, enc_pub;  // the identity the list holds for it
    std::string role;             // current role ("" once removed or left)
    bool in_list = false;         // shared and not removed or left
    long long shared_seq = 0;     // index of its latest share
    // role of every statement about it, in order: (key_gen from which it applies, role or
    // "" for remove/leave)
    std::vector<std::pair<long long, std::string>> history;
    // The role at generation k (SHARING.md §4): of the last statement with key_gen <= k; ""
    // when none or removed/left by then. The owner's statement 0 applies from generation 1
    // (the pouch was its alone before it was shared).
    std::string role_at(long long key_gen) const;
    // Whether a grant this account made at generation k is trusted (SHARING.md §4, §5): it is
    // in the list (it may grant any generation it holds, also those from before its share), or
    // it was removed or left with rotated_to > k (it held that key legitimately).
    bool grants_trusted_at(long long key_gen) const;
};

struct AccessList {
    std::string pouch_id;
    std::string owner;  // statement 0's account (the service's owner moves on a leave, §7)
    std::vector<SignedStatement> statements;
    std::vector<AccessBody> bodies;
    std::map<std::string, AccessEntry> accounts;  // every account ever named, by id
    long long head_seq = -1;
    std::string head_hash;
    long long key_gen = 0;  // the highest key_gen any statement names

    const AccessEntry* find(const std::string& account_id) const;
    bool may_write_at(const std::string& account_id, long long key_gen) const;  // write or admin
    // Why a reader refuses a revision signed by a member of account_id at key_gen (SHARING.md
    // §4 "What clients refuse"), or "": "not_in_access_list" (no role at key_gen),
    // "role_forbids_write" (role read). The member's own roster is checked apart.
    std::string revision_refusal(const std::string& account_id, long long key_gen) const;
    std::string hash_at(long long seq) const;
};

// What verify_access_list throws: the index of the first statement that fails and the body
// member that breaks the rule ("statement" when it does not decode, else one of pouch_id, seq,
// prev, kind, by, account_id, identity, role, key_gen, signature), for 409 access_conflict's
// `field`.
struct AccessListError : FormatError {
    AccessListError(const std::string& what, long long index_, std::string field_)
        : FormatError(what), index(index_), field(std::move(field_)) {}
    long long index;
    std::string field;
};

// Verifies the whole list as SHARING.md §4 says (steps 1 to 6) for `pouch_id`; throws
// AccessListError("access statement N: why") at the first statement that fails. The service calls
// it with the stored list plus the statements a request appends. Of step 5 the list alone
// checks key_gen >= every earlier one (> for remove, leave and a lowering role); that a share
// or raise names the pouch's current generation, and a rotation current + 1, is the caller's
// check (other rotations do not write to the list).
AccessList verify_access_list(std::string_view pouch_id, std::vector<SignedStatement> statements);

// ---- key grants (SHARING.md §5) --------------------------------------------------------

struct KeyGrant {
    std::string pouch_id, account_id;
    long long key_gen = 0;
    std::string hpke_enc, ciphertext, granted_by, signature;
    std::string json() const;
    std::string signed_bytes() const;
    static KeyGrant from_json(const rapidjson::Value& v);  // throws FormatError (shape only)
};

// info = "pouch/key-grant/v1" || id(pouch_id) || id(account_id) || u64be(key_gen)
std::string key_grant_info(std::string_view pouch_id, std::string_view account_id,
                           long long key_gen);

KeyGrant seal_key_grant(std::string_view pouch_id, std::string_view account_id, long long key_gen,
                        const PublicJwk& account_identity_enc_pub, std::string_view pouch_key,
                        std::string_view granted_by,
                        const crypto::P256PrivateKey& granter_identity_sign_key,
                        const crypto::P256PrivateKey* ephemeral = nullptr);

// Why a reader refuses the grant, or "": "wrong_pouch", "wrong_account", "unknown_granter"
// (granted_by never in the list, or not grants_trusted_at(key_gen)), "bad_signature".
std::string grant_refusal(const KeyGrant& g, const AccessList& list, std::string_view pouch_id,
                          std::string_view account_id);

// Opens the pouch key with the account identity's HPKE key (after grant_refusal said "").
std::string open_key_grant(const KeyGrant& g, const crypto::P256PrivateKey& identity_enc_key);

}  // namespace pouch::clientfmt
