// hpke.cpp -- RFC 9180 base mode for DHKEM(P-256, HKDF-SHA256) / HKDF-SHA256 / AES-128-GCM
// (hpke.h): LabeledExtract/LabeledExpand (§4), DHKEM Encap/Decap (§4.1), DeriveKeyPair
// (§7.1.3), the key schedule (§5.1) and the AEAD context (§5.2) on common/crypto/kdf.h,
// aead.h and P256PrivateKey's ECDH.
#include "common/crypto/hpke.h"

#include <stdexcept>

#include "common/crypto/aead.h"
#include "common/crypto/kdf.h"

namespace pouch::crypto::hpke {
namespace {

std::string i2osp(uint64_t v, size_t n) {
    std::string out(n, '\0');
    for (size_t i = 0; i < n && i < 8; ++i)
        out[n - 1 - i] = static_cast<char>((v >> (8 * i)) & 0xff);
    return out;
}

// suite_id of the KEM (§4.1) and of the whole HPKE suite (§5.1).
const std::string& kem_suite() {
    static const std::string s = "KEM" + i2osp(0x0010, 2);
    return s;
}
const std::string& hpke_suite() {
    static const std::string s = "HPKE" + i2osp(0x0010, 2) + i2osp(0x0001, 2) + i2osp(0x0001, 2);
    return s;
}

std::string labeled_extract(const std::string& suite, std::string_view salt, std::string_view label,
                            std::string_view ikm) {
    std::string labeled = "HPKE-v1" + suite;
    labeled.append(label);
    labeled.append(ikm);
    return hkdf_extract(salt, labeled);
}

std::string labeled_expand(const std::string& suite, std::string_view prk, std::string_view label,
                           std::string_view info, size_t length) {
    std::string labeled = i2osp(length, 2) + "HPKE-v1" + suite;
    labeled.append(label);
    labeled.append(info);
    return hkdf_expand(prk, labeled, length);
}

std::string extract_and_expand(std::string_view dh, std::string_view kem_context) {
    std::string eae_prk = labeled_extract(kem_suite(), "", "eae_prk", dh);
    return labeled_expand(kem_suite(), eae_prk, "shared_secret", kem_context, kSecretSize);
}

// KeySchedule<ROLE>(mode_base, shared_secret, info, "", "") of §5.1.
Context key_schedule(std::string_view shared_secret, std::string_view info) {
    std::string psk_id_hash = labeled_extract(hpke_suite(), "", "psk_id_hash", "");
    std::string info_hash = labeled_extract(hpke_suite(), "", "info_hash", info);
    std::string context = std::string(1, '\0') + psk_id_hash + info_hash;
    std::string secret = labeled_extract(hpke_suite(), shared_secret, "secret", "");
    return Context(labeled_expand(hpke_suite(), secret, "key", context, kKeySize),
                   labeled_expand(hpke_suite(), secret, "base_nonce", context, kNonceSize),
                   labeled_expand(hpke_suite(), secret, "exp", context, kSecretSize));
}

}  // namespace

P256PrivateKey derive_key_pair(std::string_view ikm) {
    std::string dkp_prk = labeled_extract(kem_suite(), "", "dkp_prk", ikm);
    for (int counter = 0; counter <= 255; ++counter) {
        // bitmask 0xff for P-256: the candidate is used whole.
        std::string candidate =
            labeled_expand(kem_suite(), dkp_prk, "candidate", i2osp(counter, 1), 32);
        if (auto key = P256PrivateKey::from_scalar(candidate)) return *key;
    }
    throw std::runtime_error("DeriveKeyPairError");  // probability about 2^-8160
}

Context::Context(std::string key, std::string base_nonce, std::string exporter_secret)
    : key_(std::move(key)),
      base_nonce_(std::move(base_nonce)),
      exporter_secret_(std::move(exporter_secret)) {}

std::string Context::nonce() const {
    std::string n = base_nonce_;
    std::string s = i2osp(seq_, kNonceSize);
    for (size_t i = 0; i < kNonceSize; ++i) n[i] = static_cast<char>(n[i] ^ s[i]);
    return n;
}

std::string Context::seal(std::string_view aad, std::string_view pt) {
    // §5.2: the sequence number must not wrap; 2^64 - 1 messages are out of reach here, but
    // the check costs nothing.
    if (seq_ == UINT64_MAX) throw std::runtime_error("MessageLimitReachedError");
    std::string ct = aes_gcm_seal(key_, nonce(), aad, pt);
    ++seq_;
    return ct;
}

std::optional<std::string> Context::open(std::string_view aad, std::string_view ct) {
    if (seq_ == UINT64_MAX) return std::nullopt;
    auto pt = aes_gcm_open(key_, nonce(), aad, ct);
    if (pt) ++seq_;
    return pt;
}

std::string Context::export_secret(std::string_view exporter_context, size_t length) const {
    return labeled_expand(hpke_suite(), exporter_secret_, "sec", exporter_context, length);
}

Sender setup_base_s(std::string_view pk_r, std::string_view info, const P256PrivateKey& ephemeral) {
    auto dh = ephemeral.ecdh(pk_r);
    if (!dh) throw std::invalid_argument("the recipient key is not a P-256 point");
    std::string enc = ephemeral.public_point();
    std::string kem_context = enc + std::string(pk_r);
    std::string shared = extract_and_expand(*dh, kem_context);
    Context ctx = key_schedule(shared, info);
    return Sender{std::move(enc), std::move(shared), std::move(ctx)};
}

Sender setup_base_s(std::string_view pk_r, std::string_view info) {
    return setup_base_s(pk_r, info, P256PrivateKey::generate());
}

std::optional<Context> setup_base_r(std::string_view enc, const P256PrivateKey& sk_r,
                                    std::string_view info) {
    auto dh = sk_r.ecdh(enc);
    if (!dh) return std::nullopt;
    std::string kem_context = std::string(enc) + sk_r.public_point();
    return key_schedule(extract_and_expand(*dh, kem_context), info);
}

Sealed seal(std::string_view pk_r, std::string_view info, std::string_view aad,
            std::string_view pt) {
    Sender s = setup_base_s(pk_r, info);
    return Sealed{s.enc, s.ctx.seal(aad, pt)};
}

std::optional<std::string> open(const P256PrivateKey& sk_r, std::string_view enc,
                                std::string_view info, std::string_view aad, std::string_view ct) {
    if (enc.size() != kEncSize) return std::nullopt;
    auto ctx = setup_base_r(enc, sk_r, info);
    if (!ctx) return std::nullopt;
    return ctx->open(aad, ct);
}

}  // namespace pouch::crypto::hpke
