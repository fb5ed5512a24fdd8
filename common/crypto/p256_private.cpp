// p256_private.cpp -- client-side P-256 private keys on OpenSSL 3 EVP APIs (p256_private.h):
// EC keygen on prime256v1, keys from a scalar through EVP_PKEY_fromdata (public point by
// EC_POINT_mul), PKCS#8 PEM in and out, DER ECDSA signatures turned into fixed-width R||S,
// and ECDH with EVP_PKEY_derive.
#include "common/crypto/p256_private.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/obj_mac.h>
#include <openssl/param_build.h>
#include <openssl/pem.h>

#include "common/crypto/b64url.h"
#include "common/crypto/es256.h"

namespace pouch::crypto {
namespace {

struct Free {
    void operator()(BIO* p) const { BIO_free(p); }
    void operator()(BIGNUM* p) const { BN_clear_free(p); }
    void operator()(BN_CTX* p) const { BN_CTX_free(p); }
    void operator()(EVP_MD_CTX* p) const { EVP_MD_CTX_free(p); }
    void operator()(EVP_PKEY_CTX* p) const { EVP_PKEY_CTX_free(p); }
    void operator()(ECDSA_SIG* p) const { ECDSA_SIG_free(p); }
    void operator()(EC_GROUP* p) const { EC_GROUP_free(p); }
    void operator()(EC_POINT* p) const { EC_POINT_free(p); }
    void operator()(OSSL_PARAM_BLD* p) const { OSSL_PARAM_BLD_free(p); }
    void operator()(OSSL_PARAM* p) const { OSSL_PARAM_free(p); }
};
template <class T>
using Owned = std::unique_ptr<T, Free>;

std::shared_ptr<EVP_PKEY> own(EVP_PKEY* k) {
    return {k, EVP_PKEY_free};
}

std::string ssl_error() {
    char buf[256] = "unknown OpenSSL error";
    if (unsigned long e = ERR_get_error()) ERR_error_string_n(e, buf, sizeof buf);
    ERR_clear_error();
    return buf;
}

// 32 big-endian bytes: a coordinate or scalar of P-256, left-padded so that R||S and the
// JWK coordinates always have their fixed width (a short BN_bn2bin would break verifiers).
std::string pad32(const BIGNUM* bn) {
    std::string out(32, '\0');
    if (BN_bn2binpad(bn, reinterpret_cast<unsigned char*>(out.data()), 32) != 32)
        throw std::runtime_error("P-256 value wider than 32 bytes");
    return out;
}

std::string coordinate(EVP_PKEY* key, const char* param) {
    BIGNUM* raw = nullptr;
    if (EVP_PKEY_get_bn_param(key, param, &raw) != 1)
        throw std::runtime_error("cannot read public key: " + ssl_error());
    Owned<BIGNUM> bn(raw);
    return b64url_encode(pad32(bn.get()));
}

bool is_p256(EVP_PKEY* key) {
    if (!EVP_PKEY_is_a(key, "EC")) return false;
    char group[64] = {};
    size_t len = 0;
    if (EVP_PKEY_get_utf8_string_param(key, OSSL_PKEY_PARAM_GROUP_NAME, group, sizeof group,
                                       &len) != 1)
        return false;
    return std::strcmp(group, "prime256v1") == 0 || std::strcmp(group, "P-256") == 0;
}

const unsigned char* bytes(std::string_view s) {
    return reinterpret_cast<const unsigned char*>(s.data());
}

}  // namespace

P256PrivateKey::P256PrivateKey(std::shared_ptr<EVP_PKEY> key)
    : key_(std::move(key)),
      x_(coordinate(key_.get(), OSSL_PKEY_PARAM_EC_PUB_X)),
      y_(coordinate(key_.get(), OSSL_PKEY_PARAM_EC_PUB_Y)) {}

P256PrivateKey P256PrivateKey::generate() {
    EVP_PKEY* raw = EVP_EC_gen("P-256");
    if (!raw) throw std::runtime_error("P-256 key generation failed: " + ssl_error());
    return P256PrivateKey(own(raw));
}

std::optional<P256PrivateKey> P256PrivateKey::from_scalar(std::string_view d32) {
    if (d32.size() != 32) return std::nullopt;
    Owned<EC_GROUP> group(EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1));
    Owned<BIGNUM> d(BN_bin2bn(bytes(d32), 32, nullptr));
    Owned<BN_CTX> bnctx(BN_CTX_new());
    if (!group || !d || !bnctx) throw std::runtime_error("out of memory: " + ssl_error());
    if (BN_is_zero(d.get()) || BN_cmp(d.get(), EC_GROUP_get0_order(group.get())) >= 0)
        return std::nullopt;
    Owned<EC_POINT> pub(EC_POINT_new(group.get()));
    unsigned char point[65];
    if (!pub || EC_POINT_mul(group.get(), pub.get(), d.get(), nullptr, nullptr, bnctx.get()) != 1 ||
        EC_POINT_point2oct(group.get(), pub.get(), POINT_CONVERSION_UNCOMPRESSED, point,
                           sizeof point, bnctx.get()) != sizeof point)
        throw std::runtime_error("P-256 point multiplication failed: " + ssl_error());

    Owned<OSSL_PARAM_BLD> bld(OSSL_PARAM_BLD_new());
    char group_name[] = "P-256";
    if (!bld ||
        OSSL_PARAM_BLD_push_utf8_string(bld.get(), OSSL_PKEY_PARAM_GROUP_NAME, group_name, 0) !=
            1 ||
        OSSL_PARAM_BLD_push_BN(bld.get(), OSSL_PKEY_PARAM_PRIV_KEY, d.get()) != 1 ||
        OSSL_PARAM_BLD_push_octet_string(bld.get(), OSSL_PKEY_PARAM_PUB_KEY, point, sizeof point) !=
            1)
        throw std::runtime_error("cannot build key parameters: " + ssl_error());
    Owned<OSSL_PARAM> params(OSSL_PARAM_BLD_to_param(bld.get()));
    Owned<EVP_PKEY_CTX> ctx(EVP_PKEY_CTX_new_from_name(nullptr, "EC", nullptr));
    EVP_PKEY* raw = nullptr;
    if (!params || !ctx || EVP_PKEY_fromdata_init(ctx.get()) != 1 ||
        EVP_PKEY_fromdata(ctx.get(), &raw, EVP_PKEY_KEYPAIR, params.get()) != 1)
        throw std::runtime_error("cannot make a P-256 key from a scalar: " + ssl_error());
    return P256PrivateKey(own(raw));
}

std::optional<P256PrivateKey> P256PrivateKey::from_pem(std::string_view pem, std::string& err) {
    Owned<BIO> bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
    // No passphrase callback: key files are protected by their mode, and a prompt would
    // hang a script.
    EVP_PKEY* raw =
        bio ? PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, const_cast<char*>("")) : nullptr;
    if (!raw) {
        err = "not a PEM private key: " + ssl_error();
        return std::nullopt;
    }
    auto key = own(raw);
    if (!is_p256(key.get())) {
        err = "not a P-256 EC key";
        return std::nullopt;
    }
    return P256PrivateKey(std::move(key));
}

std::optional<P256PrivateKey> P256PrivateKey::load(const std::string& path, std::string& err) {
    Owned<BIO> bio(BIO_new_file(path.c_str(), "r"));
    if (!bio) {
        err = "cannot open " + path + ": " + std::strerror(errno);
        ERR_clear_error();
        return std::nullopt;
    }
    EVP_PKEY* raw = PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, const_cast<char*>(""));
    if (!raw) {
        err = path + " is not a PEM private key: " + ssl_error();
        return std::nullopt;
    }
    auto key = own(raw);
    if (!is_p256(key.get())) {
        err = path + " is not a P-256 EC key";
        return std::nullopt;
    }
    return P256PrivateKey(std::move(key));
}

std::string P256PrivateKey::to_pem() const {
    Owned<BIO> mem(BIO_new(BIO_s_mem()));
    // PEM_write_bio_PrivateKey writes PKCS#8 ("BEGIN PRIVATE KEY") in OpenSSL 3.
    if (!mem ||
        PEM_write_bio_PrivateKey(mem.get(), key_.get(), nullptr, nullptr, 0, nullptr, nullptr) != 1)
        throw std::runtime_error("cannot encode key: " + ssl_error());
    char* data = nullptr;
    long len = BIO_get_mem_data(mem.get(), &data);
    return std::string(data, static_cast<size_t>(len));
}

bool P256PrivateKey::save(const std::string& path, std::string& err) const {
    // O_EXCL: never replace a key silently; 0600 from the start, not chmod afterwards, so
    // the private key is never readable by others even for a moment.
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) {
        err = "cannot create " + path + ": " + std::strerror(errno);
        return false;
    }
    std::string pem;
    try {
        pem = to_pem();
    } catch (const std::exception& e) {
        err = e.what();
        ::close(fd);
        ::unlink(path.c_str());
        return false;
    }
    bool ok = true;
    for (size_t off = 0; ok && off < pem.size();) {
        ssize_t n = ::write(fd, pem.data() + off, pem.size() - off);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0)
            ok = false;
        else
            off += static_cast<size_t>(n);
    }
    if (ok && ::fsync(fd) != 0) ok = false;
    if (!ok) err = "cannot write " + path + ": " + std::strerror(errno);
    if (::close(fd) != 0 && ok) {
        err = "cannot write " + path + ": " + std::strerror(errno);
        ok = false;
    }
    if (!ok) ::unlink(path.c_str());
    return ok;
}

std::string P256PrivateKey::public_jwk_json() const {
    // x and y are b64url (no characters that need JSON escaping), so the fixed member
    // order of the JWK can be written directly.
    return R"({"kty":"EC","crv":"P-256","x":")" + x_ + R"(","y":")" + y_ + R"("})";
}

std::string P256PrivateKey::public_point() const {
    return *p256_point_from_jwk(x_, y_);
}

std::string P256PrivateKey::scalar() const {
    BIGNUM* raw = nullptr;
    if (EVP_PKEY_get_bn_param(key_.get(), OSSL_PKEY_PARAM_PRIV_KEY, &raw) != 1)
        throw std::runtime_error("cannot read private key: " + ssl_error());
    Owned<BIGNUM> bn(raw);
    return pad32(bn.get());
}

std::string P256PrivateKey::sign_es256(std::string_view msg) const {
    Owned<EVP_MD_CTX> md(EVP_MD_CTX_new());
    size_t der_len = 0;
    if (!md || EVP_DigestSignInit(md.get(), nullptr, EVP_sha256(), nullptr, key_.get()) != 1 ||
        EVP_DigestSign(md.get(), nullptr, &der_len, bytes(msg), msg.size()) != 1)
        throw std::runtime_error("ES256 signing failed: " + ssl_error());
    std::string der(der_len, '\0');
    if (EVP_DigestSign(md.get(), reinterpret_cast<unsigned char*>(der.data()), &der_len, bytes(msg),
                       msg.size()) != 1)
        throw std::runtime_error("ES256 signing failed: " + ssl_error());
    // OpenSSL produces DER; JWS wants the two 32-byte integers side by side.
    const unsigned char* p = bytes(der);
    Owned<ECDSA_SIG> sig(d2i_ECDSA_SIG(nullptr, &p, static_cast<long>(der_len)));
    if (!sig) throw std::runtime_error("ES256 signature not DER: " + ssl_error());
    const BIGNUM* r = nullptr;
    const BIGNUM* s = nullptr;
    ECDSA_SIG_get0(sig.get(), &r, &s);
    return es256_low_s(pad32(r) + pad32(s));  // signers give S <= n/2 (decisions §15)
}

std::optional<std::string> P256PrivateKey::ecdh(std::string_view peer_point) const {
    auto peer = p256_public_from_point(peer_point);
    if (!peer) return std::nullopt;
    Owned<EVP_PKEY_CTX> ctx(EVP_PKEY_CTX_new_from_pkey(nullptr, key_.get(), nullptr));
    size_t len = 0;
    if (!ctx || EVP_PKEY_derive_init(ctx.get()) != 1 ||
        EVP_PKEY_derive_set_peer(ctx.get(), peer.get()) != 1 ||
        EVP_PKEY_derive(ctx.get(), nullptr, &len) != 1 || len != 32) {
        ERR_clear_error();
        return std::nullopt;
    }
    std::string out(len, '\0');
    if (EVP_PKEY_derive(ctx.get(), reinterpret_cast<unsigned char*>(out.data()), &len) != 1 ||
        len != 32) {
        ERR_clear_error();
        return std::nullopt;
    }
    return out;
}

std::shared_ptr<EVP_PKEY> p256_public_from_point(std::string_view point) {
    if (point.size() != 65 || point[0] != 0x04) return nullptr;
    Owned<OSSL_PARAM_BLD> bld(OSSL_PARAM_BLD_new());
    char group_name[] = "P-256";
    if (!bld ||
        OSSL_PARAM_BLD_push_utf8_string(bld.get(), OSSL_PKEY_PARAM_GROUP_NAME, group_name, 0) !=
            1 ||
        OSSL_PARAM_BLD_push_octet_string(bld.get(), OSSL_PKEY_PARAM_PUB_KEY, point.data(),
                                         point.size()) != 1)
        return nullptr;
    Owned<OSSL_PARAM> params(OSSL_PARAM_BLD_to_param(bld.get()));
    Owned<EVP_PKEY_CTX> ctx(EVP_PKEY_CTX_new_from_name(nullptr, "EC", nullptr));
    EVP_PKEY* raw = nullptr;
    // fromdata decodes the point onto the curve and fails for an off-curve point.
    if (!params || !ctx || EVP_PKEY_fromdata_init(ctx.get()) != 1 ||
        EVP_PKEY_fromdata(ctx.get(), &raw, EVP_PKEY_PUBLIC_KEY, params.get()) != 1) {
        ERR_clear_error();
        return nullptr;
    }
    return own(raw);
}

std::optional<std::string> p256_point_from_jwk(std::string_view x_b64, std::string_view y_b64) {
    if (x_b64.size() != 43 || y_b64.size() != 43) return std::nullopt;
    auto x = b64url_decode(x_b64);
    auto y = b64url_decode(y_b64);
    if (!x || !y || x->size() != 32 || y->size() != 32) return std::nullopt;
    return std::string(1, '\x04') + *x + *y;
}

}  // namespace pouch::crypto
