// roster.h -- roster statements of docs/CLIENT-FORMAT.md ("Roster statement"): making and
// signing one, decoding one, and verifying a whole chain into the account's membership
// before any member key is trusted.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/clientfmt/encoding.h"
#include "common/crypto/p256_private.h"

namespace pouch::clientfmt {

struct StatementBody {
    long long seq = 0;
    std::string prev;  // "" for seq 0
    std::string kind;  // genesis | add | remove
    std::string by;
    std::string member_id;
    PublicJwk sign_pub, enc_pub;
    std::string label;
    std::optional<std::string> device_id;
    std::string at;
    // `remove` only (and required there): the key generation the rotation that goes with the
    // removal moves the pouches to (the highest, when they differ); an integer >= 2.
    std::optional<long long> rotated_to;

    std::string jcs() const;  // JCS(body), v = 1; rotated_to is written when set
};

// What the API carries: statement = b64url(JCS(body)), signature = b64url(ES256(JCS(body))).
struct SignedStatement {
    std::string statement;
    std::string signature;
};

SignedStatement sign_statement(const StatementBody& body, const crypto::P256PrivateKey& signer);

// b64url(BLAKE3(utf8(statement string))): `prev` of the next statement, genesis_hash,
// roster_head.hash.
std::string statement_hash(std::string_view statement);

// Decodes a statement string (b64url of canonical JCS, v 1, every field typed: 11 members for
// genesis and add, 12 for remove, whose 12th is rotated_to >= 2); throws FormatError. Does
// not check the signature.
StatementBody decode_statement(std::string_view statement);

struct Member {
    std::string id;
    PublicJwk sign_pub, enc_pub;
    std::string label;
    std::optional<std::string> device_id;  // from its remove statement, when removed
    long long added_seq = 0;
    std::optional<long long> removed_seq;
    std::optional<long long> rotated_to;  // from its remove statement, when removed
    bool active() const { return !removed_seq.has_value(); }
    // Whether a key envelope this member created, or a revision it signed, at key_gen is
    // trusted (docs/CLIENT-FORMAT.md "Removed members"): an active member, or one removed
    // with rotated_to > key_gen. Anything at or above rotated_to may have been made after the
    // removal with keys that leaked, so readers refuse it.
    bool trusted_at(long long key_gen) const {
        return active() || (rotated_to && key_gen < *rotated_to);
    }
};

struct Roster {
    std::vector<SignedStatement> statements;  // index order
    std::vector<StatementBody> bodies;
    std::map<std::string, Member> members;  // every member ever added, by id
    std::string genesis_hash;
    long long head_seq = -1;
    std::string head_hash;

    const Member* find(const std::string& id) const;
    const Member* find_active(const std::string& id) const;
    std::vector<const Member*> active_members() const;
    std::string hash_at(long long seq) const;  // statement_hash of statement seq
};

// Verifies the chain as docs/CLIENT-FORMAT.md "Verifying the chain" says (steps 1 to 4);
// throws FormatError naming the first statement that fails and why.
Roster verify_roster(std::vector<SignedStatement> statements);

// Step 5: a pinned head (index and hash) must still be in the roster, unchanged.
void check_pin(const Roster& r, long long pinned_seq, const std::string& pinned_hash);

}  // namespace pouch::clientfmt
