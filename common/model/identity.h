// identity.h -- account identities (docs/SHARING.md §1) as more than one group stores and
// reads them: the identity statement and roster statement 0 it is bound to, and identity
// envelopes (the identity's private keys sealed to one member), checked before they are
// stored. The account group writes the identity with its first envelopes; cliauth's approve
// adds the new member's. Runs inside the caller's transaction.
#pragma once

#include <optional>
#include <string>

#include <rapidjson/document.h>

#include "common/clientfmt/encoding.h"
#include "common/clientfmt/roster.h"
#include "common/db/pool.h"
#include "common/json/schema.h"

namespace pouch::model {

// IdentityEnvelope of the API: {account_id, member_id, hpke_enc, ciphertext,
// created_by_member, signature}, the bounds of a key envelope's fields (decisions §3).
json::schema::Node identity_envelope();

std::optional<clientfmt::SignedStatement> identity_of(db::Conn& conn,
                                                      const std::string& account_id);
std::optional<clientfmt::SignedStatement> genesis_of(db::Conn& conn, const std::string& account_id);

// The member that made the account's roster (roster statement 0's member_id, the web member)
// and its signing key; the account must have a genesis.
struct GenesisMember {
    std::string member_id;
    clientfmt::PublicJwk sign_pub;
};
GenesisMember genesis_member(db::Conn& conn, const std::string& account_id);

// One envelope of a request (validated by identity_envelope()) at JSON Pointer `pointer`:
// its account_id is `account_id`, its created_by_member is `creator.member_id`, and its
// signature over JCS of the other five fields verifies with the creator's key. Throws 400
// invalid_field naming the member that fails.
void check_identity_envelope(const rapidjson::Value& envelope, const std::string& pointer,
                             const std::string& account_id, const GenesisMember& creator);

// Stores checked envelopes (a JSON array of them); the identity row must exist.
void insert_identity_envelopes(db::Conn& conn, const rapidjson::Value& envelopes);

}  // namespace pouch::model
