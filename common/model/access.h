// access.h -- the access list of a shared pouch as the service keeps it (docs/SHARING.md
// §4-§8): appending signed statements after verifying the whole list with
// common/clientfmt/sharing.h (verify_access_list), the pouch_access rows each statement moves,
// key grants and the rule that a rotation of a shared pouch carries a grant for every other
// account, and the audit entries of sharing changes (written with the owner's account).
// Everything runs inside the caller's transaction, which holds the pouch row's lock.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <rapidjson/document.h>

#include "common/clientfmt/sharing.h"
#include "common/db/pool.h"

namespace pouch::model {

// The stored list of `pouch_id`, verified (the service verified every statement before it
// stored it, so a failure here is an internal error). An empty list for a pouch never shared.
clientfmt::AccessList stored_access_list(db::Conn& conn, const std::string& pouch_id);
// The raw stored statements in index order.
std::vector<clientfmt::SignedStatement> stored_access(db::Conn& conn, const std::string& pouch_id);

// One statement a request appends, with the JSON Pointer a refusal names.
struct NewStatement {
    clientfmt::SignedStatement signed_statement;
    std::string pointer;  // "/statements/0", "/statement"
};

// What the states of pouch_access become when a `remove` or a `leave` is appended: a remove is
// `removed` (withdraw: `withdrawn`), a leave `left` (decline: `declined`).
struct AppendStates {
    std::string remove = "removed";
    std::string leave = "left";
};

struct Appended {
    clientfmt::AccessList list;                  // the whole list afterwards
    std::vector<clientfmt::AccessBody> bodies;   // the appended ones
    long long first_index = 0;
};

// Verifies the stored list plus `statements` (SHARING.md §4), each signed by `signer_account`
// (409 access_conflict naming the statement otherwise, as for any rule of §4), every `share`
// naming the published identity of its account (or its stand-in) and statement 0 the owner's;
// then stores them and moves pouch_access: a share makes its account `invited` (the owner's
// own statement 0 keeps it `active`), a role changes the role, a remove or leave the state
// (`states`). Throws 409 last_admin when a statement would leave no admin.
// `pouch_key_gen` is the pouch's current generation: a share or a raise names it, a remove, a
// leave or a lowered role the next one (SHARING.md §4, step 5, as the service checks it).
Appended append_access(db::Conn& conn, const std::string& pouch_id, const std::string& owner,
                       const std::string& signer_account, long long pouch_key_gen,
                       const std::vector<NewStatement>& statements, const AppendStates& states = {});

// An accepted invitation: the account's `invited` row becomes `active` (it reaches the pouch).
void activate_access(db::Conn& conn, const std::string& pouch_id, const std::string& account_id);

// The public identity `account_id` has published (account_identities). nullopt for an id
// that is no account: a stand-in (docs/SHARING.md §2), whose identity the service does not
// re-derive here (nobody can answer for it). 409 identity_required for an account without one.
std::optional<clientfmt::PublicIdentity> published_identity(db::Conn& conn,
                                                            const std::string& account_id);

// Checks and stores `grants` (the validated JSON array at `pointer`) for `pouch_id`: every
// grant names this pouch, an account of `list` other than the granter, is signed by its
// `granted_by` (an account in the list at its key_gen, grant_refusal of sharing.h) who must be
// `granter_account`, and repeats no (account, key_gen) of the request. A grant already stored
// identically is a retry; a different one is 409 access_conflict. 400 validation_failed names
// the first bad grant.
void store_key_grants(db::Conn& conn, const std::string& pouch_id, const clientfmt::AccessList& list,
                      const std::string& granter_account, const rapidjson::Value& grants,
                      const std::string& pointer);

// A rotation of shared pouch `pouch_id` to `key_gen` carries a grant at `key_gen` for every
// account in `list` other than `granter_account`: 409 access_conflict at `pointer` otherwise.
void require_rotation_grants(const clientfmt::AccessList& list, const std::string& granter_account,
                             long long key_gen, const rapidjson::Value* grants,
                             const std::string& pointer);

// For the device revoke and POST key-envelopes: after `rotated` pouches moved to a new key
// generation, each of them that is shared must get its grants from `grants` (key_grants of
// the request, grouped by pouch_id; may be null), checked and stored as above.
void store_rotation_grants(db::Conn& conn, const std::vector<std::string>& rotated,
                           const std::string& granter_account, const rapidjson::Value* grants,
                           const std::string& pointer);

// An audit entry of a sharing change (SHARING.md §8) under the pouch owner's account.
void audit_sharing(db::Conn& conn, const std::string& owner, const std::optional<std::string>& actor_user,
                   const std::string& action, const std::string& pouch_id,
                   const std::string& after_json, const std::string& request_id);

// Marks pending invitations past their expiry `expired` (and their pouch_access rows), with an
// audit entry each; lazily, from every invitation read or write (no timer): those of
// `account_id` as inviter or invitee and those of `pouch_id` (either may be empty).
void expire_invitations(db::Conn& conn, const std::string& account_id, const std::string& pouch_id);

}  // namespace pouch::model
