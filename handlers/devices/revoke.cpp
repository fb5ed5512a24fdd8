// revoke.cpp -- POST /v1/devices/{id}/revoke (op 11). Web: any device of the account; CLI:
// only itself. Idempotent: revoking a revoked device answers the same and stores nothing. The
// device's tokens stop working at once, its member leaves the roster's active set, the
// envelopes it staged above a pouch's key_gen are dropped, and an optional roster rotation
// (signed statements + re-keyed envelopes at key_gen + 1) is stored as in §5.6 and §13.
// rotation_pending says whether re-keying is still owed.
#include "common/model/device_tokens.h"
#include "common/model/access.h"
#include "common/model/key_envelopes.h"
#include "common/model/pouch_events.h"
#include "common/model/roster.h"
#include "common/model/usage.h"
#include "common/wakeup/wakeup.h"
#include "handlers/devices/routes.h"
#include "handlers/devices/sql.h"

namespace pouch::devices {

RevokeAnswer revoke(api::Call& call) {
    const auth::Caller& c = call.who();
    http::Services& s = call.services;
    const rapidjson::Document& doc = call.body;
    const std::string& id = call.param("id");

    std::vector<std::string> woken;
    bool pending = false;
    {
        auto conn = s.db.acquire();
        db::Transaction tx(*conn);
        auto d = conn->maybe_one(sql::kLockDevice, {.id = id, .account_id = c.account_id});
        if (!d) throw http::not_found();
        if (c.is_cli() && id != c.device_id)
            throw http::forbidden("a CLI device may revoke only itself");
        const std::string& member_id = d->member_id;
        // A revoked device stays revoked: a second revoke answers the same and stores nothing
        // (decisions §13), so repeating it cannot append statements outside any bound.
        if (!d->revoked) {
            model::Usage before = model::lock_account_usage(*conn, c.account_id);
            conn->run(sql::kRevokeDevice, {.id = id});
            conn->run(sql::kRemoveMember, {.id = member_id});
            model::revoke_device_tokens(*conn, id);
            // Envelopes the revoked member staged above a pouch's key_gen would otherwise
            // stand in the way of the rotation that follows.
            model::drop_envelopes_above_current(*conn, c.account_id, member_id);
            if (doc.HasMember("roster")) {
                const auto& roster = doc["roster"];
                model::append_roster(*conn, c.account_id, roster["statements"]);
                woken = model::append_roster_events(*conn, c.account_id, c.device_id);
                model::StoredEnvelopes stored;
                if (roster.HasMember("key_envelopes"))
                    stored = model::store_key_envelopes(*conn, c.account_id, roster["key_envelopes"],
                                                        "/roster/key_envelopes", c.member_id,
                                                        c.device_id, true, model::KeyGenRule::rotation);
                // Each rotated pouch that is shared carries a grant for every other account in
                // its list (docs/SHARING.md §7; 409 access_conflict otherwise).
                model::store_rotation_grants(
                    *conn, stored.rotated_pouches, c.account_id,
                    roster.HasMember("key_grants") ? &roster["key_grants"] : nullptr,
                    "/roster/key_grants");
            }
            model::require_within_quota(*conn, c.account_id, before);
        }
        pending = conn->one(sql::kRotationPending,
                            {.member_id = member_id, .account_id = c.account_id})
                      .pending;
        tx.commit();
    }
    wakeup::publish(s.redis, wakeup::Topic::events, woken);

    return {.revoked = true, .rotation_pending = pending};
}

}  // namespace pouch::devices
