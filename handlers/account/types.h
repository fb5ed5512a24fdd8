// types.h -- the account group's requests, answers and rows, each described once: as JSON
// (json/described.h: the schema, the decoder, the writer) and, where a statement returns it,
// as a row (db/query.h reads a described struct by its JSON names).
#pragma once

#include <optional>
#include <string>
#include <tuple>

#include "common/db/query.h"
#include "common/json/described.h"
#include "common/model/plan.h"
#include "common/model/sql_identity.h"

namespace pouch::account {

namespace js = json::schema;

// ---- requests --------------------------------------------------------------------------------

struct SignupRequest {
    std::string email, password;
    static auto json_fields() {
        return std::tuple{
            json::field("email", &SignupRequest::email, js::string().min_chars(1).max_chars(254)),
            json::field("password", &SignupRequest::password,
                        js::string().min_chars(10).max_chars(1024)),
        };
    }
};

struct LoginRequest {
    std::string email, password;
    static auto json_fields() {
        return std::tuple{
            json::field("email", &LoginRequest::email, js::string().min_chars(1).max_chars(254)),
            json::field("password", &LoginRequest::password,
                        js::string().min_chars(1).max_chars(1024)),
        };
    }
};

// ---- answers (and the rows they are read from) -------------------------------------------------

struct SignupAnswer {
    std::string user_id, storage_account_id, session_token, expires_at;
    static auto json_fields() {
        return std::tuple{json::field("user_id", &SignupAnswer::user_id),
                          json::field("storage_account_id", &SignupAnswer::storage_account_id),
                          json::field("session_token", &SignupAnswer::session_token),
                          json::field("expires_at", &SignupAnswer::expires_at)};
    }
};

struct LoginAnswer {
    std::string user_id, session_token, expires_at;
    static auto json_fields() {
        return std::tuple{json::field("user_id", &LoginAnswer::user_id),
                          json::field("session_token", &LoginAnswer::session_token),
                          json::field("expires_at", &LoginAnswer::expires_at)};
    }
};

// What the account holds (decisions §4): reservations that have not expired count.
struct Usage {
    long long stored_bytes = 0, reserved_bytes = 0, pouches = 0;
    static auto json_fields() {
        return std::tuple{json::field("stored_bytes", &Usage::stored_bytes),
                          json::field("reserved_bytes", &Usage::reserved_bytes),
                          json::field("pouches", &Usage::pouches)};
    }
};

// GET /v1/account.
struct AccountAnswer {
    std::string user_id, email, role, storage_account_id;
    std::optional<std::string> member_id;  // the caller's own member; null before genesis
    model::Plan plan;
    Usage usage;
    static auto json_fields() {
        return std::tuple{json::field("user_id", &AccountAnswer::user_id),
                          json::field("email", &AccountAnswer::email),
                          json::field("role", &AccountAnswer::role),
                          json::field("storage_account_id", &AccountAnswer::storage_account_id),
                          json::field("member_id", &AccountAnswer::member_id),
                          json::field("plan", &AccountAnswer::plan),
                          json::field("usage", &AccountAnswer::usage)};
    }
};

// The overview's row: the user, the account, its usage, then its plan (POUCH_PLAN_FIELDS).
struct OverviewRow : Usage, model::Plan {
    std::string user_id, email, role, account_id;
    std::optional<std::string> web_member_id;
    static auto db_columns() {
        return std::tuple_cat(std::tuple{db::col("user_id", &OverviewRow::user_id),
                                         db::col("email", &OverviewRow::email),
                                         db::col("role", &OverviewRow::role),
                                         db::col("account_id", &OverviewRow::account_id),
                                         db::col("web_member_id", &OverviewRow::web_member_id)},
                              Usage::json_fields(), model::Plan::json_fields());
    }
};

struct GenesisAnswer {
    std::string genesis_hash, pouch_id;
    static auto json_fields() {
        return std::tuple{json::field("genesis_hash", &GenesisAnswer::genesis_hash),
                          json::field("pouch_id", &GenesisAnswer::pouch_id)};
    }
};

// One roster statement as GET /v1/account/roster lists it.
struct RosterEntry {
    long long index = 0;
    std::string statement, signature, created_at;
    static auto json_fields() {
        return std::tuple{json::field("index", &RosterEntry::index),
                          json::field("statement", &RosterEntry::statement),
                          json::field("signature", &RosterEntry::signature),
                          json::field("created_at", &RosterEntry::created_at)};
    }
};

// A listed statement, the stored bytes of the page's rows before it and how many rows the
// page read before its byte cut (paging.h).
struct RosterRow : RosterEntry {
    long long bytes_before = 0, fetched = 0;
    static auto db_columns() {
        return std::tuple_cat(RosterEntry::json_fields(),
                              std::tuple{db::col("bytes_before", &RosterRow::bytes_before),
                                         db::col("fetched", &RosterRow::fetched)});
    }
};

// ---- identities (docs/SHARING.md §1, §2) ------------------------------------------------------

using model::sql::IdentityEnvelopeRow;
using model::sql::StoredStatement;

// GET /v1/account/identity: the account's identity statement and the caller's member's
// envelope, each null until there is one.
struct IdentityAnswer {
    std::optional<StoredStatement> identity;
    std::optional<IdentityEnvelopeRow> envelope;
    static auto json_fields() {
        return std::tuple{json::field("identity", &IdentityAnswer::identity),
                          json::field("envelope", &IdentityAnswer::envelope)};
    }
};

// PUT /v1/account/identity: 201 with the stored statement.
struct IdentityStored {
    StoredStatement identity;
    static auto json_fields() {
        return std::tuple{json::field("identity", &IdentityStored::identity)};
    }
};

// GET /v1/identities?email=: the same shape for every well-formed address (a stand-in's too).
struct LookupAnswer {
    std::string account_id, email;
    StoredStatement identity, genesis;
    static auto json_fields() {
        return std::tuple{json::field("account_id", &LookupAnswer::account_id),
                          json::field("email", &LookupAnswer::email),
                          json::field("identity", &LookupAnswer::identity),
                          json::field("genesis", &LookupAnswer::genesis)};
    }
};

// The lookup's row for an account that has an identity.
struct LookupRow {
    std::string account_id, identity_statement, identity_signature, genesis_statement,
        genesis_signature;
    static auto db_columns() {
        return std::tuple{db::col("account_id", &LookupRow::account_id),
                          db::col("identity_statement", &LookupRow::identity_statement),
                          db::col("identity_signature", &LookupRow::identity_signature),
                          db::col("genesis_statement", &LookupRow::genesis_statement),
                          db::col("genesis_signature", &LookupRow::genesis_signature)};
    }
};

// One entry of GET /v1/account/audit (SHARING.md §8): who acted (a user id, "operator" for
// pouchctl) and their address when known, the action, its target, before/after as JSON objects.
struct AccountAuditEntry {
    long long id = 0;
    std::string actor;
    std::optional<std::string> actor_email;
    std::string action, target;
    std::optional<json::Raw> before, after;
    std::optional<std::string> request_id;
    std::string at;
    static auto json_fields() {
        return std::tuple{
            json::field("id", &AccountAuditEntry::id),
            json::field("actor", &AccountAuditEntry::actor),
            json::field("actor_email", &AccountAuditEntry::actor_email),
            json::field("action", &AccountAuditEntry::action),
            json::field("target", &AccountAuditEntry::target),
            json::field("before", &AccountAuditEntry::before, js::object({}).nullable()),
            json::field("after", &AccountAuditEntry::after, js::object({}).nullable()),
            json::field("request_id", &AccountAuditEntry::request_id),
            json::field("at", &AccountAuditEntry::at),
        };
    }
};

}  // namespace pouch::account
