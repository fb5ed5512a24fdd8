// rotation.cpp -- removal statements, rotation envelopes and the revoke body (rotation.h), on
// roster.h's statements and key_envelope.h's HPKE sealing.
#include "common/clientfmt/rotation.h"

#include <algorithm>

#include "common/crypto/random.h"
#include "common/json/out.h"

namespace pouch::clientfmt {

SignedStatement removal_statement(const Roster& r, const Member& removed, std::string_view by,
                                  std::string_view device_id, long long rotated_to,
                                  const crypto::P256PrivateKey& by_sign_key) {
    StatementBody b;
    b.seq = r.head_seq + 1;
    b.prev = r.head_hash;
    b.kind = "remove";
    b.by = by;
    b.member_id = removed.id;
    b.sign_pub = removed.sign_pub;
    b.enc_pub = removed.enc_pub;
    b.label = removed.label;
    b.device_id = std::string(device_id);
    b.at = rfc3339_utc(now_unix());
    b.rotated_to = rotated_to;
    return sign_statement(b, by_sign_key);
}

long long rotated_to_of(const std::vector<long long>& current_gens) {
    long long top = 1;
    for (long long g : current_gens) top = std::max(top, g);
    return top + 1;
}

std::vector<KeyEnvelope> rotation_envelopes(std::string_view pouch_id, long long key_gen,
                                            const Roster& r, std::string_view leaving,
                                            std::string_view by,
                                            const crypto::P256PrivateKey& by_sign_key) {
    std::string key = crypto::random_bytes(kPouchKeySize);
    std::vector<KeyEnvelope> out;
    for (const Member* m : r.active_members())
        if (m->id != leaving)
            out.push_back(
                seal_key_envelope(pouch_id, m->id, key_gen, m->enc_pub, key, by, by_sign_key));
    return out;
}

std::string key_envelopes_body(const std::vector<KeyEnvelope>& envelopes) {
    json::Out o;
    o.key("key_envelopes").arr();
    for (const auto& e : envelopes) o.raw(e.json());
    o.end_arr();
    return o.done();
}

std::string revoke_body(const SignedStatement& removal, const std::vector<KeyEnvelope>& envelopes,
                        std::string_view reason) {
    json::Out o;
    o.key("roster").obj().key("statements").arr().obj().kv("statement", removal.statement);
    o.kv("signature", removal.signature).end_obj().end_arr();
    o.key("key_envelopes").arr();
    for (const auto& e : envelopes) o.raw(e.json());
    o.end_arr().end_obj().kv("reason", reason);
    return o.done();
}

}  // namespace pouch::clientfmt
