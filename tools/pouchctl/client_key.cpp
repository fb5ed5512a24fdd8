// client_key.cpp -- the CLI sign key on OpenSSL 3 EVP APIs (client_key.h): EC keygen on
// prime256v1, PKCS#8 PEM in and out, coordinates from OSSL_PKEY_PARAM_EC_PUB_X/Y and
// DER ECDSA signatures turned into fixed-width R||S.
#include "tools/pouchctl/client_key.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <stdexcept>

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/pem.h>

#include "common/crypto/b64url.h"

namespace pouchctl {
namespace {

struct BioFree {
    void operator()(BIO* b) const { BIO_free(b); }
};
struct BnFree {
    void operator()(BIGNUM* b) const { BN_free(b); }
};
struct MdCtxFree {
    void operator()(EVP_MD_CTX* c) const { EVP_MD_CTX_free(c); }
};
struct SigFree {
    void operator()(ECDSA_SIG* s) const { ECDSA_SIG_free(s); }
};
using Bio = std::unique_ptr<BIO, BioFree>;
using Bn = std::unique_ptr<BIGNUM, BnFree>;

std::shared_ptr<EVP_PKEY> own(EVP_PKEY* k) { return {k, EVP_PKEY_free}; }

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
    Bn bn(raw);
    return pouch::crypto::b64url_encode(pad32(bn.get()));
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

}  // namespace

SignKey::SignKey(std::shared_ptr<EVP_PKEY> key)
    : key_(std::move(key)),
      x_(coordinate(key_.get(), OSSL_PKEY_PARAM_EC_PUB_X)),
      y_(coordinate(key_.get(), OSSL_PKEY_PARAM_EC_PUB_Y)) {}

SignKey SignKey::generate() {
    EVP_PKEY* raw = EVP_EC_gen("P-256");
    if (!raw) throw std::runtime_error("P-256 key generation failed: " + ssl_error());
    return SignKey(own(raw));
}

std::optional<SignKey> SignKey::load(const std::string& path, std::string& err) {
    Bio bio(BIO_new_file(path.c_str(), "r"));
    if (!bio) {
        err = "cannot open " + path + ": " + std::strerror(errno);
        ERR_clear_error();
        return std::nullopt;
    }
    // No passphrase callback: the key file is protected by its mode, and a prompt would
    // hang a script that calls pouchctl.
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
    return SignKey(std::move(key));
}

bool SignKey::save(const std::string& path, std::string& err) const {
    // O_EXCL: never replace a key silently; 0600 from the start, not chmod afterwards, so
    // the private key is never readable by others even for a moment.
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) {
        err = "cannot create " + path + ": " + std::strerror(errno);
        return false;
    }
    Bio mem(BIO_new(BIO_s_mem()));
    // PEM_write_bio_PrivateKey writes PKCS#8 ("BEGIN PRIVATE KEY") in OpenSSL 3.
    if (!mem || PEM_write_bio_PrivateKey(mem.get(), key_.get(), nullptr, nullptr, 0, nullptr,
                                         nullptr) != 1) {
        err = "cannot encode key: " + ssl_error();
        ::close(fd);
        ::unlink(path.c_str());
        return false;
    }
    char* data = nullptr;
    long len = BIO_get_mem_data(mem.get(), &data);
    bool ok = len > 0;
    for (long off = 0; ok && off < len;) {
        ssize_t n = ::write(fd, data + off, static_cast<size_t>(len - off));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) ok = false;
        else off += n;
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

std::string SignKey::public_jwk_json() const {
    // x and y are b64url (no characters that need JSON escaping), so the fixed member
    // order of the JWK can be written directly.
    return R"({"kty":"EC","crv":"P-256","x":")" + x_ + R"(","y":")" + y_ + R"("})";
}

std::string SignKey::sign_es256(std::string_view msg) const {
    std::unique_ptr<EVP_MD_CTX, MdCtxFree> md(EVP_MD_CTX_new());
    size_t der_len = 0;
    if (!md || EVP_DigestSignInit(md.get(), nullptr, EVP_sha256(), nullptr, key_.get()) != 1 ||
        EVP_DigestSign(md.get(), nullptr, &der_len,
                       reinterpret_cast<const unsigned char*>(msg.data()), msg.size()) != 1)
        throw std::runtime_error("ES256 signing failed: " + ssl_error());
    std::string der(der_len, '\0');
    if (EVP_DigestSign(md.get(), reinterpret_cast<unsigned char*>(der.data()), &der_len,
                       reinterpret_cast<const unsigned char*>(msg.data()), msg.size()) != 1)
        throw std::runtime_error("ES256 signing failed: " + ssl_error());
    // OpenSSL produces DER; JWS wants the two 32-byte integers side by side.
    const unsigned char* p = reinterpret_cast<const unsigned char*>(der.data());
    std::unique_ptr<ECDSA_SIG, SigFree> sig(d2i_ECDSA_SIG(nullptr, &p, static_cast<long>(der_len)));
    if (!sig) throw std::runtime_error("ES256 signature not DER: " + ssl_error());
    const BIGNUM* r = nullptr;
    const BIGNUM* s = nullptr;
    ECDSA_SIG_get0(sig.get(), &r, &s);
    return pad32(r) + pad32(s);
}

}  // namespace pouchctl
