// sql_identity.h -- the statements of account identities (docs/SHARING.md §1, sql/011) that
// more than one group runs: the account group stores and serves them, cliauth's approve adds
// the new member's envelope. Typed by their structs (common/db/query.h).
#pragma once

#include <optional>
#include <string>
#include <tuple>

#include "common/db/keys.h"
#include "common/db/query.h"
#include "common/json/described.h"

namespace pouch::model::sql {

// ---- parameters and rows ------------------------------------------------------------------------

// A signed statement as stored and answered ({statement, signature}): the identity statement
// or a roster statement.
struct StoredStatement {
    std::string statement, signature;
    static auto json_fields() {
        return std::tuple{json::field("statement", &StoredStatement::statement),
                          json::field("signature", &StoredStatement::signature)};
    }
};

struct IdentityParams {
    std::string account_id, statement, signature, sign_pub, enc_pub;
    static auto db_params() {
        return std::tuple{db::col("account_id", &IdentityParams::account_id),
                          db::col("statement", &IdentityParams::statement),
                          db::col("signature", &IdentityParams::signature),
                          db::col("sign_pub", &IdentityParams::sign_pub),
                          db::col("enc_pub", &IdentityParams::enc_pub)};
    }
};

// Envelopes of one request as a jsonb array (their JSON as validated).
struct IdentityEnvelopes {
    json::Raw envelopes;
    static auto db_params() {
        return std::tuple{db::col("envelopes", &IdentityEnvelopes::envelopes)};
    }
};

struct MemberOfAccount {
    std::string account_id, member_id;
    static auto db_params() {
        return std::tuple{db::col("account_id", &MemberOfAccount::account_id),
                          db::col("member_id", &MemberOfAccount::member_id)};
    }
};

struct MemberId {
    std::string id;
    static auto db_columns() { return std::tuple{db::col("id", &MemberId::id)}; }
};

// One identity envelope as stored and as the API carries it (SHARING.md §1).
struct IdentityEnvelopeRow {
    std::string account_id, member_id, hpke_enc, ciphertext, created_by_member, signature;
    static auto json_fields() {
        return std::tuple{json::field("account_id", &IdentityEnvelopeRow::account_id),
                          json::field("member_id", &IdentityEnvelopeRow::member_id),
                          json::field("hpke_enc", &IdentityEnvelopeRow::hpke_enc),
                          json::field("ciphertext", &IdentityEnvelopeRow::ciphertext),
                          json::field("created_by_member", &IdentityEnvelopeRow::created_by_member),
                          json::field("signature", &IdentityEnvelopeRow::signature)};
    }
};

struct SecretRow {
    std::string secret;
    long long created_unix = 0;
    static auto db_columns() {
        return std::tuple{db::col("secret", &SecretRow::secret),
                          db::col("created_unix", &SecretRow::created_unix)};
    }
};

struct ByName {
    std::string name;
    static auto db_params() { return std::tuple{db::col("name", &ByName::name)}; }
};

// ---- statements ---------------------------------------------------------------------------------

inline const db::Query<db::ByAccount, StoredStatement> kIdentityOf{
    "model_identity_of",
    "SELECT statement, signature FROM account_identities WHERE account_id = $1"};

// Roster statement 0: what binds an identity to its account.
inline const db::Query<db::ByAccount, StoredStatement> kGenesisOf{
    "model_identity_genesis_of",
    "SELECT statement, signature FROM roster_entries WHERE account_id = $1 AND idx = 0"};

// No row: the account already has an identity (identities never change).
inline const db::Query<IdentityParams, MemberId> kInsertIdentity{
    "model_identity_insert",
    "INSERT INTO account_identities (account_id, statement, signature, sign_pub, enc_pub)"
    " VALUES ($1, $2, $3, $4, $5) ON CONFLICT (account_id) DO NOTHING"
    " RETURNING account_id AS id"};

// The account's active members (to check that each gets an envelope).
inline const db::Query<db::ByAccount, MemberId> kActiveMembers{
    "model_identity_active_members",
    "SELECT id FROM members WHERE account_id = $1 AND removed_at IS NULL ORDER BY id"};

inline const db::Query<IdentityEnvelopes> kInsertIdentityEnvelopes{
    "model_identity_insert_envelopes",
    "INSERT INTO identity_envelopes (account_id, member_id, hpke_enc, ciphertext,"
    "                                created_by_member, signature)"
    " SELECT account_id, member_id, hpke_enc, ciphertext, created_by_member, signature"
    "   FROM jsonb_to_recordset($1::jsonb) AS e(account_id uuid, member_id uuid,"
    "        hpke_enc text, ciphertext text, created_by_member uuid, signature text)"};

inline const db::Query<MemberOfAccount, IdentityEnvelopeRow> kIdentityEnvelopeOf{
    "model_identity_envelope_of",
    "SELECT account_id, member_id, hpke_enc, ciphertext, created_by_member, signature"
    "  FROM identity_envelopes WHERE account_id = $1 AND member_id = $2"};

inline const db::Query<ByName, SecretRow> kServiceSecret{
    "model_service_secret",
    "SELECT secret, extract(epoch FROM created_at)::bigint AS created_unix"
    "  FROM service_secrets WHERE name = $1"};

}  // namespace pouch::model::sql
