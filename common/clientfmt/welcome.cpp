// welcome.cpp -- sealing and opening the login welcome (welcome.h) with HPKE.
#include "common/clientfmt/welcome.h"

#include "common/crypto/b64url.h"
#include "common/crypto/hpke.h"
#include "common/json/out.h"

namespace pouch::clientfmt {

std::string Welcome::jcs() const {
    json::Out o;
    o.kv("v", 1).kv("account_id", lower_uuid(account_id)).kv("genesis_hash", genesis_hash);
    o.key("roster_head").obj().kv("seq", head_seq).kv("hash", head_hash).end_obj();
    o.key("approver").obj();
    o.kv("member_id", lower_uuid(approver_id));
    o.key("sign_pub").raw(approver_sign.json());
    o.key("enc_pub").raw(approver_enc.json());
    o.end_obj();
    return jcs_of(o.done());
}

Welcome Welcome::parse(std::string_view json) {
    rapidjson::Document d = parse_object(json);
    if (get_int(d, "v") != 1) throw FormatError("welcome version is not 1");
    Welcome w;
    w.account_id = lower_uuid(get_str(d, "account_id"));
    w.genesis_hash = get_str(d, "genesis_hash");
    const auto& head = get_obj(d, "roster_head");
    w.head_seq = get_int(head, "seq");
    w.head_hash = get_str(head, "hash");
    const auto& a = get_obj(d, "approver");
    w.approver_id = lower_uuid(get_str(a, "member_id"));
    w.approver_sign = PublicJwk::from_json(get_obj(a, "sign_pub"), "approver.sign_pub");
    w.approver_enc = PublicJwk::from_json(get_obj(a, "enc_pub"), "approver.enc_pub");
    return w;
}

namespace {

std::string welcome_info(std::string_view request_id) {
    return "pouch/welcome/v1" + id_bytes(request_id);
}

}  // namespace

std::string seal_welcome(const Welcome& w, const PublicJwk& cli_enc_pub,
                         std::string_view request_id, const crypto::P256PrivateKey* ephemeral) {
    std::string info = welcome_info(request_id);
    crypto::hpke::Sender s = ephemeral
                                 ? crypto::hpke::setup_base_s(cli_enc_pub.point(), info, *ephemeral)
                                 : crypto::hpke::setup_base_s(cli_enc_pub.point(), info);
    return crypto::b64url_encode(s.enc + s.ctx.seal("", w.jcs()));
}

Welcome open_welcome(std::string_view welcome, const crypto::P256PrivateKey& cli_enc_key,
                     std::string_view request_id) {
    auto bytes = crypto::b64url_decode(welcome);
    if (!bytes || bytes->size() <= crypto::hpke::kEncSize + 16)
        throw FormatError("the welcome is not b64url of enc || ciphertext");
    auto pt = crypto::hpke::open(
        cli_enc_key, std::string_view(*bytes).substr(0, crypto::hpke::kEncSize),
        welcome_info(request_id), "", std::string_view(*bytes).substr(crypto::hpke::kEncSize));
    if (!pt) throw FormatError("the welcome does not open with this device's key");
    return Welcome::parse(*pt);
}

}  // namespace pouch::clientfmt
