// key_envelope.cpp -- sealing, signing, checking and opening key envelopes (key_envelope.h)
// on common/crypto/hpke.h, ES256 and the verified roster.
#include "common/clientfmt/key_envelope.h"

#include "common/crypto/b64url.h"
#include "common/crypto/es256.h"
#include "common/crypto/hpke.h"
#include "common/json/out.h"

namespace pouch::clientfmt {

namespace {

void write_fields(json::Out& o, const KeyEnvelope& e) {
    o.kv("pouch_id", lower_uuid(e.pouch_id)).kv("member_id", lower_uuid(e.member_id));
    o.kv("key_gen", e.key_gen).kv("hpke_enc", e.hpke_enc).kv("ciphertext", e.ciphertext);
    o.kv("created_by_member", lower_uuid(e.created_by_member));
}

}  // namespace

std::string KeyEnvelope::json() const {
    json::Out o;
    write_fields(o, *this);
    o.kv("signature", signature);
    return o.done();
}

std::string KeyEnvelope::signed_bytes() const {
    json::Out o;
    write_fields(o, *this);
    return jcs_of(o.done());
}

KeyEnvelope KeyEnvelope::from_json(const rapidjson::Value& v) {
    KeyEnvelope e;
    e.pouch_id = lower_uuid(get_str(v, "pouch_id"));
    e.member_id = lower_uuid(get_str(v, "member_id"));
    e.key_gen = get_int(v, "key_gen");
    e.hpke_enc = get_str(v, "hpke_enc");
    e.ciphertext = get_str(v, "ciphertext");
    e.created_by_member = lower_uuid(get_str(v, "created_by_member"));
    e.signature = get_str(v, "signature");
    return e;
}

std::string key_envelope_info(std::string_view pouch_id, std::string_view member_id,
                              long long key_gen) {
    return "pouch/key-envelope/v1" + id_bytes(pouch_id) + id_bytes(member_id) +
           u64be(static_cast<uint64_t>(key_gen));
}

KeyEnvelope seal_key_envelope(std::string_view pouch_id, std::string_view member_id,
                              long long key_gen, const PublicJwk& member_enc_pub,
                              std::string_view pouch_key, std::string_view creator_member_id,
                              const crypto::P256PrivateKey& creator_sign_key,
                              const crypto::P256PrivateKey* ephemeral) {
    if (pouch_key.size() != kPouchKeySize) throw FormatError("a pouch key has 32 bytes");
    std::string info = key_envelope_info(pouch_id, member_id, key_gen);
    crypto::hpke::Sender sender =
        ephemeral ? crypto::hpke::setup_base_s(member_enc_pub.point(), info, *ephemeral)
                  : crypto::hpke::setup_base_s(member_enc_pub.point(), info);
    crypto::hpke::Sealed s{sender.enc, sender.ctx.seal("", pouch_key)};
    KeyEnvelope e;
    e.pouch_id = lower_uuid(pouch_id);
    e.member_id = lower_uuid(member_id);
    e.key_gen = key_gen;
    e.hpke_enc = crypto::b64url_encode(s.enc);
    e.ciphertext = crypto::b64url_encode(s.ct);
    e.created_by_member = lower_uuid(creator_member_id);
    e.signature = crypto::b64url_encode(creator_sign_key.sign_es256(e.signed_bytes()));
    return e;
}

std::string envelope_refusal(const KeyEnvelope& e, const Roster& r, std::string_view pouch_id,
                             std::string_view member_id) {
    if (!is_uuid(pouch_id) || e.pouch_id != lower_uuid(pouch_id)) return "wrong_pouch";
    if (!is_uuid(member_id) || e.member_id != lower_uuid(member_id)) return "wrong_member";
    const Member* creator = r.find(e.created_by_member);
    if (!creator) return "unknown_creator";
    if (!creator->trusted_at(e.key_gen)) return "creator_removed";
    return "";
}

std::string open_key_envelope(const KeyEnvelope& e, const PublicJwk& creator_sign_pub,
                              const crypto::P256PrivateKey& member_enc_key) {
    std::string where =
        "key envelope of pouch " + e.pouch_id + " key_gen " + std::to_string(e.key_gen);
    auto key = crypto::P256PublicKey::from_jwk(creator_sign_pub.x, creator_sign_pub.y);
    auto sig = crypto::b64url_decode(e.signature);
    if (!key || !sig || !key->verify(e.signed_bytes(), *sig))
        throw FormatError(where + ": the signature of " + e.created_by_member + " does not verify");
    auto enc = crypto::b64url_decode(e.hpke_enc);
    auto ct = crypto::b64url_decode(e.ciphertext);
    if (!enc || !ct) throw FormatError(where + ": hpke_enc or ciphertext is not b64url");
    auto pt = crypto::hpke::open(member_enc_key, *enc,
                                 key_envelope_info(e.pouch_id, e.member_id, e.key_gen), "", *ct);
    if (!pt) throw FormatError(where + ": does not open with this member's key");
    if (pt->size() != kPouchKeySize) throw FormatError(where + ": the pouch key is not 32 bytes");
    return *pt;
}

}  // namespace pouch::clientfmt
