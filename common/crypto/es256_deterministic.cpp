// es256_deterministic.cpp -- see es256_deterministic.h. The ECDSA arithmetic on OpenSSL's
// BIGNUM and EC_POINT (not deprecated in OpenSSL 3), constant-time flags on the secrets.
#include "common/crypto/es256_deterministic.h"

#include <memory>
#include <stdexcept>

#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/obj_mac.h>

#include "common/crypto/es256.h"
#include "common/crypto/hash.h"
#include "common/crypto/kdf.h"

namespace pouch::crypto {
namespace {

struct Free {
    void operator()(BIGNUM* p) const { BN_clear_free(p); }
    void operator()(BN_CTX* p) const { BN_CTX_free(p); }
    void operator()(EC_GROUP* p) const { EC_GROUP_free(p); }
    void operator()(EC_POINT* p) const { EC_POINT_free(p); }
};
template <class T>
using Owned = std::unique_ptr<T, Free>;

Owned<BIGNUM> bn_of(std::string_view b) {
    Owned<BIGNUM> n(BN_bin2bn(reinterpret_cast<const unsigned char*>(b.data()),
                              static_cast<int>(b.size()), nullptr));
    if (!n) throw std::runtime_error("out of memory (BIGNUM)");
    return n;
}

std::string pad32(const BIGNUM* bn) {
    std::string out(32, '\0');
    if (BN_bn2binpad(bn, reinterpret_cast<unsigned char*>(out.data()), 32) != 32)
        throw std::runtime_error("P-256 value wider than 32 bytes");
    return out;
}

}  // namespace

std::string sign_es256_deterministic(const P256PrivateKey& key, std::string_view msg) {
    Owned<EC_GROUP> group(EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1));
    Owned<BN_CTX> ctx(BN_CTX_new());
    if (!group || !ctx) throw std::runtime_error("out of memory (EC_GROUP)");
    const BIGNUM* n = EC_GROUP_get0_order(group.get());
    const std::string d_bytes = key.scalar();
    const std::string digest = sha256(msg);
    Owned<BIGNUM> d = bn_of(d_bytes);
    BN_set_flags(d.get(), BN_FLG_CONSTTIME);
    Owned<BIGNUM> z = bn_of(digest);  // P-256: the whole 256-bit digest, no truncation

    for (int i = 0; i < 256; ++i) {
        std::string input = "pouch/es256-deterministic/v1";
        input += static_cast<char>(i);
        input += digest;
        Owned<BIGNUM> k = bn_of(hmac_sha256(d_bytes, input));
        if (BN_is_zero(k.get()) || BN_cmp(k.get(), n) >= 0) continue;
        BN_set_flags(k.get(), BN_FLG_CONSTTIME);

        Owned<EC_POINT> kg(EC_POINT_new(group.get()));
        Owned<BIGNUM> x(BN_new()), r(BN_new()), kinv(BN_new()), rd(BN_new()), sum(BN_new()),
            s(BN_new());
        if (!kg || !x || !r || !kinv || !rd || !sum || !s ||
            EC_POINT_mul(group.get(), kg.get(), k.get(), nullptr, nullptr, ctx.get()) != 1 ||
            EC_POINT_get_affine_coordinates(group.get(), kg.get(), x.get(), nullptr, ctx.get()) !=
                1 ||
            BN_nnmod(r.get(), x.get(), n, ctx.get()) != 1)
            throw std::runtime_error("P-256 point multiplication failed");
        if (BN_is_zero(r.get())) continue;
        if (!BN_mod_inverse(kinv.get(), k.get(), n, ctx.get()) ||
            BN_mod_mul(rd.get(), r.get(), d.get(), n, ctx.get()) != 1 ||
            BN_mod_add(sum.get(), z.get(), rd.get(), n, ctx.get()) != 1 ||
            BN_mod_mul(s.get(), kinv.get(), sum.get(), n, ctx.get()) != 1)
            throw std::runtime_error("ECDSA arithmetic failed");
        if (BN_is_zero(s.get())) continue;
        return es256_low_s(pad32(r.get()) + pad32(s.get()));
    }
    throw std::runtime_error("no deterministic ECDSA nonce found");  // 2^-256 per try
}

}  // namespace pouch::crypto
