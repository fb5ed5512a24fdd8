// types.h -- the shares group's request, answers and rows (decisions §8), each described once:
// as JSON (json/described.h: the schema, the decoder, the writer) and, where a statement
// returns it, as a row (db/query.h reads a described struct by its JSON names).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <tuple>

#include "common/crypto/b64url.h"
#include "common/db/query.h"
#include "common/json/described.h"

namespace pouch::shares {

namespace js = json::schema;

inline bool canonical_b64url(std::string_view s) {
    return crypto::b64url_canonical(s);
}
inline const char* const kCanonical =
    "b64url with exactly one decoding (length not 4k+1, unused bits zero)";

// ---- request ---------------------------------------------------------------------------------

// POST /v1/pouches/{pouchId}/shares. Bounds of interface.md; a sealed label always carries at
// least a nonce and a tag, so an empty label_enc (or bundle) is refused.
struct CreateRequest {
    std::string id, bundle, label_enc;
    std::optional<std::string> expires;  // absent = 7d
    std::optional<bool> one_time;
    static auto json_fields() {
        return std::tuple{
            json::field("id", &CreateRequest::id, js::uuid()),
            json::field(
                "bundle", &CreateRequest::bundle,
                js::b64url().min_chars(1).max_chars(11184811).check(canonical_b64url, kCanonical)),
            json::field(
                "label_enc", &CreateRequest::label_enc,
                js::b64url().min_chars(1).max_chars(683).check(canonical_b64url, kCanonical)),
            json::field("expires", &CreateRequest::expires,
                        js::one_of({"1d", "7d", "30d", "never"})),
            json::field("one_time", &CreateRequest::one_time, js::boolean()),
        };
    }
};

// ---- answers (and the rows they are read from) -------------------------------------------------

// The Share object of interface.md; the bundle is never part of it. The statements select it
// with SHARE_COLUMNS (sql.h), whose names are these.
struct Share {
    std::string id, pouch_id, label_enc, state;
    bool one_time = false;
    long long size = 0, views = 0, imports = 0;
    std::optional<std::string> expires_at, revoked_at, last_imported_at;
    std::string created_at;
    static auto json_fields() {
        return std::tuple{
            json::field("id", &Share::id),
            json::field("pouch_id", &Share::pouch_id),
            json::field("label_enc", &Share::label_enc),
            json::field("state", &Share::state),
            json::field("one_time", &Share::one_time),
            json::field("size", &Share::size),
            json::field("views", &Share::views),
            json::field("imports", &Share::imports),
            json::field("expires_at", &Share::expires_at),
            json::field("revoked_at", &Share::revoked_at),
            json::field("last_imported_at", &Share::last_imported_at),
            json::field("created_at", &Share::created_at),
        };
    }
};

// A listed share and its page key (microseconds of created_at).
struct ShareRow : Share {
    long long created_us = 0;
    static auto db_columns() {
        return std::tuple_cat(Share::json_fields(),
                              std::tuple{db::col("created_us", &ShareRow::created_us)});
    }
};

// GET /v1/shares/{id}: the sealed bundle for whoever holds the link.
struct FetchedShare {
    std::string id, label_enc, bundle;
    long long size = 0;
    std::optional<std::string> expires_at;
    bool one_time = false;
    static auto json_fields() {
        return std::tuple{
            json::field("id", &FetchedShare::id),
            json::field("label_enc", &FetchedShare::label_enc),
            json::field("bundle", &FetchedShare::bundle),
            json::field("size", &FetchedShare::size),
            json::field("expires_at", &FetchedShare::expires_at),
            json::field("one_time", &FetchedShare::one_time),
        };
    }
};

// POST /v1/shares/{id}/import: only the counters, since the importer may be another account,
// which learns nothing of the owner's pouch or the share's other metadata.
struct Imported {
    std::string id;
    long long imports = 0;
    std::string last_imported_at;
    static auto json_fields() {
        return std::tuple{json::field("id", &Imported::id),
                          json::field("imports", &Imported::imports),
                          json::field("last_imported_at", &Imported::last_imported_at)};
    }
};

}  // namespace pouch::shares
