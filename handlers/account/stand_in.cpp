// stand_in.cpp -- see stand_in.h. Everything comes from seed = HMAC-SHA256(secret,
// "pouch/stand-in/v1" || email) through part(label) = HMAC-SHA256(seed, label): the account
// and member ids (v4 uuids of its first 16 bytes), the member's and the identity's four P-256
// scalars (the first candidate part(label || u8(i)) that is a valid scalar), the time. The
// statements are those a browser makes at genesis (label "web", no device) and at identity.
#include "handlers/account/stand_in.h"

#include <cstdint>

#include "common/clientfmt/sharing.h"
#include "common/crypto/b64url.h"
#include "common/crypto/es256_deterministic.h"
#include "common/crypto/kdf.h"

namespace pouch::account {

namespace {

constexpr long long kAtSpread = 180LL * 86400;

std::string uuid_of(std::string bytes) {
    bytes.resize(16);
    bytes[6] = static_cast<char>((bytes[6] & 0x0f) | 0x40);  // version 4
    bytes[8] = static_cast<char>((bytes[8] & 0x3f) | 0x80);  // RFC 4122 variant
    static const char* hex = "0123456789abcdef";
    std::string out;
    for (size_t i = 0; i < 16; ++i) {
        if (i == 4 || i == 6 || i == 8 || i == 10) out += '-';
        auto b = static_cast<unsigned char>(bytes[i]);
        out += hex[b >> 4];
        out += hex[b & 0x0f];
    }
    return out;
}

struct Seed {
    std::string seed;
    std::string part(std::string_view label) const { return crypto::hmac_sha256(seed, label); }
    crypto::P256PrivateKey key(std::string_view label) const {
        for (int i = 0; i < 256; ++i) {
            std::string l(label);
            l += static_cast<char>(i);
            if (auto k = crypto::P256PrivateKey::from_scalar(part(l))) return *k;
        }
        throw std::runtime_error("no stand-in scalar");  // 2^-32 per candidate
    }
};

clientfmt::SignedStatement sign(const std::string& jcs, const crypto::P256PrivateKey& key) {
    return {crypto::b64url_encode(jcs),
            crypto::b64url_encode(crypto::sign_es256_deterministic(key, jcs))};
}

clientfmt::PublicJwk jwk(const crypto::P256PrivateKey& k) {
    return {.x = k.x(), .y = k.y()};
}

}  // namespace

StandIn stand_in(std::string_view secret, long long secret_created_unix, std::string_view email) {
    std::string msg = "pouch/stand-in/v1";
    msg += email;
    const Seed s{crypto::hmac_sha256(secret, msg)};
    const std::string account_id = uuid_of(s.part("account"));
    const std::string member_id = uuid_of(s.part("member"));
    const std::string t = s.part("at");
    uint64_t spread = 0;
    for (int i = 0; i < 8; ++i) spread = (spread << 8) | static_cast<unsigned char>(t[i]);
    const std::string at = clientfmt::rfc3339_utc(
        secret_created_unix - static_cast<long long>(spread % static_cast<uint64_t>(kAtSpread)));

    const crypto::P256PrivateKey member_sign = s.key("member-sign");
    const crypto::P256PrivateKey member_enc = s.key("member-enc");
    const crypto::P256PrivateKey id_sign = s.key("identity-sign");
    const crypto::P256PrivateKey id_enc = s.key("identity-enc");

    clientfmt::StatementBody g;
    g.seq = 0;
    g.kind = "genesis";
    g.by = member_id;
    g.member_id = member_id;
    g.sign_pub = jwk(member_sign);
    g.enc_pub = jwk(member_enc);
    g.label = "web";
    g.at = at;
    StandIn out;
    out.account_id = account_id;
    out.genesis = sign(g.jcs(), member_sign);

    clientfmt::IdentityBody b;
    b.account_id = account_id;
    b.genesis_hash = clientfmt::statement_hash(out.genesis.statement);
    b.by = member_id;
    b.sign_pub = jwk(id_sign);
    b.enc_pub = jwk(id_enc);
    b.at = at;
    out.identity = sign(b.jcs(), member_sign);
    return out;
}

}  // namespace pouch::account
