// sharing_types.h -- the answers of the sharing endpoints (docs/SHARING.md §9): invitations,
// members and key grants, described once as JSON and read as rows by the same names.
#pragma once

#include <optional>
#include <string>
#include <tuple>

#include "common/db/query.h"
#include "common/json/described.h"

namespace pouch::shares {

// `Invitation` of SHARING.md §9 without inviter_identity, which the writer adds as raw JSON.
struct Invitation {
    std::string id, pouch_id, inviter_account_id;
    std::optional<std::string> inviter_email;
    std::string invitee_account_id, email, role, state, created_at, expires_at;
    std::optional<std::string> decided_at;
    long long access_index = 0;
    static auto json_fields() {
        return std::tuple{json::field("id", &Invitation::id),
                          json::field("pouch_id", &Invitation::pouch_id),
                          json::field("inviter_account_id", &Invitation::inviter_account_id),
                          json::field("inviter_email", &Invitation::inviter_email),
                          json::field("invitee_account_id", &Invitation::invitee_account_id),
                          json::field("email", &Invitation::email),
                          json::field("role", &Invitation::role),
                          json::field("state", &Invitation::state),
                          json::field("created_at", &Invitation::created_at),
                          json::field("expires_at", &Invitation::expires_at),
                          json::field("decided_at", &Invitation::decided_at),
                          json::field("access_index", &Invitation::access_index)};
    }
};

// A row of an invitation: inviter_identity is {statement, signature, genesis: {statement,
// signature}} as JSON text (null when the inviter has none); created_us the page key.
struct InvitationRow : Invitation {
    std::optional<std::string> inviter_identity;
    long long created_us = 0;
    static auto db_columns() {
        return std::tuple_cat(
            Invitation::json_fields(),
            std::tuple{db::col("inviter_identity", &InvitationRow::inviter_identity),
                       db::col("created_us", &InvitationRow::created_us)});
    }
};

// A member of GET /v1/pouches/{id}/members; identity is added from the access list.
struct MemberRow {
    std::string account_id;
    std::optional<std::string> email;
    std::string role, state, since;
    // The account's identity statement (SHARING.md §1): what binds its roster to the identity
    // the access list names, for clients that verify its members' revisions.
    std::optional<std::string> identity_statement, identity_signature;
    long long shared_us = 0;  // the page key, with account_id
    static auto db_columns() {
        return std::tuple{db::col("account_id", &MemberRow::account_id),
                          db::col("email", &MemberRow::email),
                          db::col("role", &MemberRow::role),
                          db::col("state", &MemberRow::state),
                          db::col("since", &MemberRow::since),
                          db::col("identity_statement", &MemberRow::identity_statement),
                          db::col("identity_signature", &MemberRow::identity_signature),
                          db::col("shared_us", &MemberRow::shared_us)};
    }
};

struct GrantOut {
    std::string pouch_id, account_id;
    long long key_gen = 0;
    std::string hpke_enc, ciphertext, granted_by, signature, created_at;
    static auto json_fields() {
        return std::tuple{json::field("pouch_id", &GrantOut::pouch_id),
                          json::field("account_id", &GrantOut::account_id),
                          json::field("key_gen", &GrantOut::key_gen),
                          json::field("hpke_enc", &GrantOut::hpke_enc),
                          json::field("ciphertext", &GrantOut::ciphertext),
                          json::field("granted_by", &GrantOut::granted_by),
                          json::field("signature", &GrantOut::signature),
                          json::field("created_at", &GrantOut::created_at)};
    }
};

// {index, statement, signature}: an access statement or a roster entry of another account.
struct IndexedStatement {
    long long index = 0;
    std::string statement, signature;
    static auto json_fields() {
        return std::tuple{json::field("index", &IndexedStatement::index),
                          json::field("statement", &IndexedStatement::statement),
                          json::field("signature", &IndexedStatement::signature)};
    }
};

}  // namespace pouch::shares
