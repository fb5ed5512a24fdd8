// clientfmt_vectors_test.cpp -- the C++ client format (common/clientfmt, common/crypto and the
// CLI's NFC) against docs/client-format-vectors.json, the vectors the web app's crypto module
// made from fixed inputs: a file pushed by one client opens in the other. `sharing` (docs/
// SHARING.md) is checked with common/clientfmt/sharing.h, `cdc` with cdc.h. Deterministic parts
// (JCS, hashes, HKDF, AES-GCM with the given nonces, HPKE with the given ekm) must match byte
// for byte; signatures are checked by verifying.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <vector>

#include <blake3.h>

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "clients/cli/approval_link.h"
#include "clients/cli/scan.h"
#include "clients/cli/terminal_text.h"
#include "common/clientfmt/artifact.h"
#include "common/clientfmt/cdc.h"
#include "common/clientfmt/chunk.h"
#include "common/clientfmt/key_envelope.h"
#include "common/clientfmt/roster.h"
#include "common/clientfmt/rotation.h"
#include "common/clientfmt/sharing.h"
#include "common/clientfmt/welcome.h"
#include "common/crypto/aead.h"
#include "common/crypto/b64url.h"
#include "common/crypto/confirm_code.h"
#include "common/crypto/es256.h"
#include "common/crypto/hash.h"
#include "common/crypto/hpke.h"
#include "common/crypto/kdf.h"
#include "common/json/jcs.h"
#include "common/json/parse.h"

using namespace pouch;
using namespace pouch::clientfmt;
using crypto::P256PrivateKey;

namespace {

std::string unhex(const std::string& h) {
    std::string out;
    for (size_t i = 0; i + 1 < h.size(); i += 2)
        out.push_back(static_cast<char>(std::stoi(h.substr(i, 2), nullptr, 16)));
    return out;
}

std::string str(const rapidjson::Value& o, const char* k) {
    return std::string(o[k].GetString(), o[k].GetStringLength());
}

std::string text_of(const rapidjson::Value& v) {
    rapidjson::StringBuffer b;
    rapidjson::Writer<rapidjson::StringBuffer> w(b);
    v.Accept(w);
    return std::string(b.GetString(), b.GetSize());
}

PublicJwk jwk(const rapidjson::Value& v) {
    return PublicJwk{str(v, "x"), str(v, "y")};
}

P256PrivateKey priv(const rapidjson::Value& private_jwk) {
    auto k = P256PrivateKey::from_scalar(*crypto::b64url_decode(str(private_jwk, "d")));
    if (!k) throw std::runtime_error("bad private key in the vectors");
    return *k;
}

// The file, from the source tree: tests run from the repository root (make test), or
// POUCH_SOURCE_DIR says where it is.
const rapidjson::Document& vectors() {
    static rapidjson::Document doc = [] {
        std::string dir = std::getenv("POUCH_SOURCE_DIR") ? std::getenv("POUCH_SOURCE_DIR") : ".";
        std::ifstream in(dir + "/docs/client-format-vectors.json");
        std::stringstream ss;
        ss << in.rdbuf();
        if (ss.str().empty())
            throw std::runtime_error(
                "docs/client-format-vectors.json not found (run from the repository root)");
        return json::parse_strict_any(ss.str());
    }();
    return doc;
}

const rapidjson::Value& V(const char* k) {
    return vectors()[k];
}

}  // namespace

TEST(ClientFormatVectors, JcsOfEveryInputIsTheGivenOutput) {
    for (const auto& c : V("primitives")["jcs"].GetArray()) {
        rapidjson::Document d = json::parse_strict_any(text_of(c["input"]));
        EXPECT_EQ(json::jcs(d).value_or("<none>"), str(c, "output"));
    }
}

TEST(ClientFormatVectors, Blake3HkdfHmacAndAesGcmMatch) {
    for (const auto& c : V("primitives")["blake3"].GetArray()) {
        EXPECT_EQ(crypto::to_hex(crypto::blake3_256(unhex(str(c, "input_hex")))),
                  str(c, "hash_hex"));
        EXPECT_EQ(crypto::b64url_encode(crypto::blake3_256(unhex(str(c, "input_hex")))),
                  str(c, "hash_b64url"));
    }
    for (const auto& c : V("primitives")["hkdf_sha256"].GetArray())
        EXPECT_EQ(
            crypto::to_hex(crypto::hkdf_sha256(unhex(str(c, "ikm_hex")), unhex(str(c, "salt_hex")),
                                               unhex(str(c, "info_hex")), 32)),
            str(c, "okm_hex"));
    for (const auto& c : V("primitives")["hmac_sha256"].GetArray())
        EXPECT_EQ(crypto::to_hex(
                      crypto::hmac_sha256(unhex(str(c, "key_hex")), unhex(str(c, "message_hex")))),
                  str(c, "mac_hex"));
    for (const auto& c : V("primitives")["aes_256_gcm"].GetArray()) {
        std::string key = unhex(str(c, "key_hex")), nonce = unhex(str(c, "nonce_hex")),
                    aad = unhex(str(c, "aad_hex"));
        EXPECT_EQ(
            crypto::to_hex(crypto::aes_gcm_seal(key, nonce, aad, unhex(str(c, "plaintext_hex")))),
            str(c, "sealed_hex"));
        EXPECT_EQ(crypto::aes_gcm_open(key, nonce, aad, unhex(str(c, "sealed_hex"))),
                  unhex(str(c, "plaintext_hex")));
    }
}

TEST(ClientFormatVectors, Es256VerdictsAndThumbprintsMatch) {
    for (const auto& c : V("primitives")["es256"].GetArray()) {
        auto key =
            crypto::P256PublicKey::from_jwk(str(c["public_jwk"], "x"), str(c["public_jwk"], "y"));
        ASSERT_TRUE(key);
        std::string sig = *crypto::b64url_decode(str(c, "signature_b64url"));
        bool ok = key->verify(unhex(str(c, "message_hex")), sig);
        EXPECT_EQ(ok, c["valid"].GetBool());
        EXPECT_EQ(crypto::es256_is_low_s(sig), c["low_s"].GetBool());
    }
    // One signature in its two forms: the low one and its high twin both verify.
    const auto& es = V("primitives")["es256"];
    EXPECT_TRUE(es[0]["valid"].GetBool() && es[0]["low_s"].GetBool());
    EXPECT_TRUE(es[1]["valid"].GetBool() && !es[1]["low_s"].GetBool());
    EXPECT_EQ(crypto::es256_low_s(*crypto::b64url_decode(str(es[1], "signature_b64url"))),
              *crypto::b64url_decode(str(es[0], "signature_b64url")));
    for (const auto& c : V("primitives")["jwk_thumbprint"].GetArray())
        EXPECT_EQ(jwk(c["public_jwk"]).jkt(), str(c, "jkt"));
}

TEST(ClientFormatVectors, HpkeRfc9180A3SealMatches) {
    const auto& v = V("hpke_rfc9180_a3");
    P256PrivateKey eph = crypto::hpke::derive_key_pair(unhex(str(v, "ikmE_hex")));
    EXPECT_EQ(crypto::to_hex(eph.scalar()), str(v, "skEm_hex"));
    crypto::hpke::Sender s =
        crypto::hpke::setup_base_s(unhex(str(v, "pkRm_hex")), unhex(str(v, "info_hex")), eph);
    EXPECT_EQ(crypto::to_hex(s.enc), str(v, "enc_hex"));
    EXPECT_EQ(crypto::to_hex(s.ctx.seal(unhex(str(v, "aad_hex")), unhex(str(v, "pt_hex")))),
              str(v, "ct_hex"));
}

TEST(ClientFormatVectors, RosterStatementsAreOurJcsAndTheChainVerifies) {
    const auto& r = V("roster");
    std::vector<SignedStatement> chain;
    for (const auto& e : r["entries"].GetArray()) {
        const auto& b = e["body"];
        StatementBody body;
        body.seq = b["seq"].GetInt64();
        body.prev = str(b, "prev");
        body.kind = str(b, "kind");
        body.by = str(b, "by");
        body.member_id = str(b, "member_id");
        body.sign_pub = jwk(b["sign_pub"]);
        body.enc_pub = jwk(b["enc_pub"]);
        body.label = str(b, "label");
        if (!b["device_id"].IsNull()) body.device_id = str(b, "device_id");
        body.at = str(b, "at");
        if (b.HasMember("rotated_to")) body.rotated_to = b["rotated_to"].GetInt64();
        EXPECT_EQ(body.jcs(), str(e, "jcs"));
        EXPECT_EQ(crypto::b64url_encode(body.jcs()), str(e, "statement"));
        EXPECT_EQ(statement_hash(str(e, "statement")), str(e, "hash"));
        EXPECT_EQ(decode_statement(str(e, "statement")).jcs(), str(e, "jcs"));
        chain.push_back({str(e, "statement"), str(e, "signature")});
    }
    Roster full = verify_roster(chain);
    EXPECT_EQ(full.genesis_hash, str(r, "genesis_hash"));
    // active_after is keyed by how many statements were applied ("2": entries 0..1).
    for (const auto& m : r["active_after"].GetObject()) {
        size_t n = std::stoul(m.name.GetString());
        ASSERT_LE(n, chain.size()) << "active_after names more statements than the roster has";
        Roster prefix = verify_roster(
            std::vector<SignedStatement>(chain.begin(), chain.begin() + static_cast<long>(n)));
        std::vector<std::string> want, got;
        for (const auto& id : m.value.GetArray()) want.emplace_back(id.GetString());
        for (const Member* a : prefix.active_members()) got.push_back(a->id);
        std::sort(want.begin(), want.end());
        EXPECT_EQ(got, want) << "after " << n << " statements";
    }
}

TEST(ClientFormatVectors, KeyEnvelopeSealsByteForByteAndOpens) {
    const auto& v = V("key_envelope");
    const auto& e = v["envelope"];
    P256PrivateKey eph = crypto::hpke::derive_key_pair(unhex(str(v, "ekm_hex")));
    EXPECT_EQ(crypto::to_hex(key_envelope_info(str(v, "pouch_id"), str(v, "member_id"),
                                               v["key_gen"].GetInt64())),
              str(v, "info_hex"));
    // Sealed with the same ephemeral key, ours equals theirs; the signature is ours, so
    // only the sealed fields and the signing input are compared.
    KeyEnvelope ours = seal_key_envelope(
        str(v, "pouch_id"), str(v, "member_id"), v["key_gen"].GetInt64(),
        jwk(v["recipient_public_jwk"]), unhex(str(v, "pouch_key_hex")), str(v, "created_by_member"),
        priv(V("keys")["web_sign"]["private_jwk"]), &eph);
    EXPECT_EQ(ours.hpke_enc, str(e, "hpke_enc"));
    EXPECT_EQ(ours.ciphertext, str(e, "ciphertext"));
    KeyEnvelope theirs = KeyEnvelope::from_json(e);
    EXPECT_EQ(theirs.signed_bytes(), str(v, "signing_input_jcs"));
    EXPECT_EQ(crypto::to_hex(open_key_envelope(theirs, jwk(v["creator_public_jwk"]),
                                               priv(v["recipient_private_jwk"]))),
              str(v, "pouch_key_hex"));
    EXPECT_EQ(
        open_key_envelope(ours, jwk(v["creator_public_jwk"]), priv(v["recipient_private_jwk"])),
        unhex(str(v, "pouch_key_hex")));
}

TEST(ClientFormatVectors, ChunksSealByteForByteAndOpen) {
    for (const auto& c : V("chunks").GetArray()) {
        std::string pt = unhex(str(c, "plaintext_hex"));
        EXPECT_EQ(crypto::to_hex(std::string("pouch/chunk/v1")), str(c, "aad_hex"));
        SealedChunk s = seal_chunk(pt, unhex(str(c, "key_hex")), unhex(str(c, "nonce_hex")));
        EXPECT_EQ(crypto::to_hex(s.stored), str(c, "stored_hex"));
        EXPECT_EQ(static_cast<long long>(s.stored.size()), c["stored_size"].GetInt64());
        const auto& e = c["entry"];
        EXPECT_EQ(s.entry.blob_id, str(e, "blob_id"));
        EXPECT_EQ(s.entry.size, e["size"].GetInt64());
        EXPECT_EQ(s.entry.key, str(e, "key"));
        EXPECT_EQ(s.entry.hash, str(e, "hash"));
        ChunkRef ref{str(e, "blob_id"), e["size"].GetInt64(), str(e, "key"), str(e, "hash")};
        EXPECT_EQ(open_chunk(ref, unhex(str(c, "stored_hex"))), pt);
    }
}

namespace {

// A `cdc` stream: its parts concatenated, {blake3_xof, length} being the first `length` bytes
// of BLAKE3's extendable output of the seed string, {byte, length} a run of one value.
std::string cdc_stream(const rapidjson::Value& parts) {
    std::string out;
    for (const auto& p : parts.GetArray()) {
        size_t n = p["length"].GetUint64();
        if (p.HasMember("blake3_xof")) {
            std::string seed = str(p, "blake3_xof");
            blake3_hasher h;
            blake3_hasher_init(&h);
            blake3_hasher_update(&h, seed.data(), seed.size());
            size_t at = out.size();
            out.resize(at + n);
            blake3_hasher_finalize(&h, reinterpret_cast<uint8_t*>(out.data() + at), n);
        } else {
            out.append(n, static_cast<char>(p["byte"].GetInt()));
        }
    }
    return out;
}

}  // namespace

TEST(ClientFormatVectors, CdcGearConstantsAndChunkLengthsMatch) {
    const auto& v = V("cdc");
    EXPECT_EQ(str(v, "gear_context"), "pouch/cdc/v1");
    for (unsigned i = 0; i < 4; ++i) EXPECT_EQ(cdc_gear()[i], v["gear_first"][i].GetUint());
    EXPECT_EQ(cdc_gear()[255], v["gear_last"].GetUint());
    EXPECT_EQ(kCdcMin, v["min"].GetUint64());
    EXPECT_EQ(kCdcNormal, v["normal"].GetUint64());
    EXPECT_EQ(kCdcMax, v["max"].GetUint64());
    EXPECT_EQ(kCdcMaskHard, v["mask_hard"].GetUint());
    EXPECT_EQ(kCdcMaskEasy, v["mask_easy"].GetUint());
    std::map<std::string, std::vector<size_t>> cut;
    for (const auto& s : v["streams"].GetArray()) {
        std::string data = cdc_stream(s["parts"]);
        std::vector<size_t> got, want;
        for (size_t pos = 0; pos < data.size();) {
            size_t len = cdc_cut(std::string_view(data).substr(pos, kCdcMax));
            got.push_back(len);
            pos += len;
        }
        for (const auto& n : s["chunk_lengths"].GetArray()) want.push_back(n.GetUint64());
        EXPECT_EQ(got, want) << str(s, "name");
        cut[str(s, "name")] = got;
    }
    // The insertion moved the first boundary by one and kept every other chunk.
    std::vector<size_t> orig = cut.at("random_12mib"), shifted = cut.at("random_12mib_insert_at_0");
    ASSERT_GE(orig.size(), 3u);
    ASSERT_EQ(shifted.size(), orig.size());
    EXPECT_EQ(shifted[0], orig[0] + 1);
    EXPECT_TRUE(std::equal(orig.begin() + 1, orig.end(), shifted.begin() + 1));
    // The vectors reach every branch: a cut under each mask, a chunk at max, a one-chunk file.
    bool hard = false, easy = false, max = false;
    for (const auto& [name, lengths] : cut)
        for (size_t i = 0; i + 1 < lengths.size(); ++i) {
            hard |= lengths[i] > kCdcMin && lengths[i] <= kCdcNormal;
            easy |= lengths[i] > kCdcNormal && lengths[i] < kCdcMax;
            max |= lengths[i] == kCdcMax;
        }
    EXPECT_TRUE(hard && easy && max);
    EXPECT_EQ(cut.at("at_min"), std::vector<size_t>{kCdcMin});
}

TEST(ClientFormatVectors, ArtifactEnvelopesSealByteForByteVerifyAndOpen) {
    for (const auto& a : V("artifacts").GetArray()) {
        RevisionIds ids{str(a, "pouch_id"), str(a, "artifact_id"), str(a, "revision_id"),
                        a["key_gen"].GetInt64()};
        std::string key = unhex(str(a, "pouch_key_hex"));
        Content c = Content::parse(text_of(a["content"]));
        EXPECT_EQ(c.jcs(), str(a, "content_jcs"));
        EXPECT_EQ(crypto::to_hex(artifact_key(key, ids.artifact_id)), str(a, "artifact_key_hex"));
        EXPECT_EQ(crypto::to_hex(
                      artifact_aad(ids.pouch_id, ids.artifact_id, ids.revision_id, ids.key_gen)),
                  str(a, "aad_hex"));
        std::string env = seal_envelope(key, ids, c, unhex(str(a, "nonce_hex")));
        EXPECT_EQ(env, str(a, "envelope"));
        EXPECT_EQ(crypto::b64url_encode(crypto::blake3_256(env)), str(a, "envelope_hash"));
        std::string input = ids.pouch_id + ids.artifact_id + ids.revision_id + str(a, "envelope");
        EXPECT_EQ(crypto::to_hex(crypto::blake3_256(input)), str(a, "signing_input_hex"));
        EXPECT_TRUE(verify_revision(jwk(a["signer_public_jwk"]), ids, str(a, "envelope"),
                                    str(a, "signature")));
        EXPECT_EQ(open_envelope(key, ids, str(a, "envelope")).jcs(), str(a, "content_jcs"));
        EXPECT_EQ(name_index(key, c.name), str(a, "name_index"));
        // And what the CLI signs, the web app's verifier accepts the same way: ours verifies too.
        P256PrivateKey cli = priv(V("keys")["cli_sign"]["private_jwk"]);
        EXPECT_TRUE(
            verify_revision(jwk(a["signer_public_jwk"]), ids, env, sign_revision(cli, ids, env)));
    }
}

TEST(ClientFormatVectors, NameIndexIsOverTheNfcName) {
    for (const auto& n : V("name_index").GetArray()) {
        std::string key = unhex(str(n, "pouch_key_hex"));
        std::string name = unhex(str(n, "name_hex"));
        auto nfc = cli::to_nfc(name);
        ASSERT_TRUE(nfc);
        EXPECT_EQ(crypto::to_hex(*nfc), str(n, "nfc_hex"));
        EXPECT_EQ(crypto::to_hex(crypto::hkdf_sha256(key, "", "pouch/name-index/v1", 32)),
                  str(n, "index_key_hex"));
        EXPECT_EQ(name_index(key, *nfc), str(n, "name_index"));
    }
}

TEST(ClientFormatVectors, WelcomeSealsByteForByteAndOpens) {
    const auto& v = V("welcome");
    Welcome w = Welcome::parse(text_of(v["welcome"]));
    EXPECT_EQ(w.jcs(), str(v, "welcome_jcs"));
    EXPECT_EQ(crypto::to_hex("pouch/welcome/v1" + str(v, "request_id")), str(v, "info_hex"));
    P256PrivateKey eph = crypto::hpke::derive_key_pair(unhex(str(v, "ekm_hex")));
    EXPECT_EQ(seal_welcome(w, jwk(v["recipient_public_jwk"]), str(v, "request_id"), &eph),
              str(v, "welcome_string"));
    Welcome opened = open_welcome(str(v, "welcome_string"), priv(v["recipient_private_jwk"]),
                                  str(v, "request_id"));
    EXPECT_EQ(opened.jcs(), str(v, "welcome_jcs"));
    EXPECT_EQ(opened.head_hash, str(V("roster")["entries"][1], "hash"));
}

TEST(ClientFormatVectors, ShareBundleAndLabelOpenWithTheLinkKey) {
    // The CLI makes no shares; this checks that the page's share layout is what the web app
    // writes, with the same primitives.
    const auto& v = V("share");
    std::string k = *crypto::b64url_decode(str(v, "key_b64url"));
    EXPECT_EQ(crypto::to_hex(k), str(v, "key_hex"));
    std::string bundle = *crypto::b64url_decode(str(v, "bundle"));
    auto payload = crypto::aes_gcm_open(k, bundle.substr(0, 12),
                                        "pouch/share/v1" + str(v, "share_id"), bundle.substr(12));
    ASSERT_TRUE(payload);
    EXPECT_EQ(crypto::to_hex(*payload), str(v, "payload_hex"));
    uint32_t len = (static_cast<uint8_t>((*payload)[0]) << 24) |
                   (static_cast<uint8_t>((*payload)[1]) << 16) |
                   (static_cast<uint8_t>((*payload)[2]) << 8) | static_cast<uint8_t>((*payload)[3]);
    EXPECT_EQ(payload->substr(4, len), str(v, "meta_jcs"));
    EXPECT_EQ(crypto::to_hex(payload->substr(4 + len)), str(v, "file_hex"));
    std::string label = *crypto::b64url_decode(str(v, "label_enc"));
    EXPECT_EQ(crypto::aes_gcm_open(k, label.substr(0, 12),
                                   "pouch/share-label/v1" + str(v, "share_id"), label.substr(12)),
              str(v, "label"));
}

TEST(ClientFormatVectors, RecoveryKitOpensWithItsCode) {
    const auto& v = V("recovery_kit");
    std::string kek = crypto::hkdf_sha256(unhex(str(v, "code_bytes_hex")),
                                          unhex(str(v, "salt_hex")), "pouch/recovery/v1", 32);
    EXPECT_EQ(crypto::to_hex(kek), str(v, "kek_hex"));
    const auto& kit = v["kit"];
    auto secret = crypto::aes_gcm_open(kek, *crypto::b64url_decode(str(kit, "nonce")),
                                       "pouch/recovery/v1" + str(kit, "member_id"),
                                       *crypto::b64url_decode(str(kit, "ciphertext")));
    EXPECT_EQ(secret, str(v, "secret_jcs"));
}

TEST(ClientFormatVectors, ConfirmCodesMatch) {
    for (const auto& c : V("confirm_code").GetArray())
        EXPECT_EQ(crypto::confirm_code(str(c, "request_id"), str(c, "jkt")), str(c, "code"));
}

// The approval link the CLI builds (clients/cli/approval_link.h), its v2 code and fingerprint,
// and the link read back as the approving side reads it.
TEST(ClientFormatVectors, ApprovalLinksAndV2ConfirmCodesMatch) {
    ASSERT_GE(V("confirm_code_v2").GetArray().Size(), 2u);
    for (const auto& c : V("confirm_code_v2").GetArray()) {
        PublicJwk sign = jwk(c["sign_pub"]), enc = jwk(c["enc_pub"]);
        std::string nonce = unhex(str(c, "nonce_hex"));
        EXPECT_EQ(sign.jkt(), str(c, "sign_jkt"));
        EXPECT_EQ(enc.jkt(), str(c, "enc_jkt"));
        EXPECT_EQ(
            crypto::to_hex("pouch/confirm/v2" + str(c, "request_id") + sign.jkt() + enc.jkt()),
            str(c, "info_hex"));
        EXPECT_EQ(crypto::confirm_code_v2(nonce, str(c, "request_id"), sign.jkt(), enc.jkt()),
                  str(c, "code"));
        EXPECT_EQ(crypto::key_fingerprint(sign.jkt()), str(c, "fingerprint"));
        cli::ApprovalPrompt p = cli::approval_prompt(str(c, "origin"), str(c, "request_id"),
                                                     {sign.x, sign.y}, {enc.x, enc.y}, nonce);
        EXPECT_EQ(p.link, str(c, "link"));
        EXPECT_EQ(p.code, str(c, "code"));
        EXPECT_EQ(p.fingerprint, str(c, "fingerprint"));
        auto back = cli::parse_approval_link(str(c, "link"));
        ASSERT_TRUE(back);
        EXPECT_EQ(back->base, str(c, "origin"));
        EXPECT_EQ(back->nonce, nonce);
        EXPECT_EQ(back->sign.x + back->sign.y + back->enc.x + back->enc.y,
                  sign.x + sign.y + enc.x + enc.y);
    }
}

// docs/CLIENT-FORMAT.md's rules, checked on the vectors themselves: the size rule (data for a
// file of at most 65,536 bytes, chunks above), low-S signatures from every signer, rotated_to
// on remove statements only, and the fixed lengths of the format's strings.
TEST(ClientFormatVectors, EveryDocumentedConstraintHoldsInTheVectors) {
    for (const auto& a : V("artifacts").GetArray()) {
        const auto& c = a["content"];
        long long size = c["size"].GetInt64();
        bool deleted = c.HasMember("deleted");
        if (deleted) {
            EXPECT_EQ(size, 0);
            EXPECT_FALSE(c.HasMember("data") || c.HasMember("chunks"));
        } else if (size <= kInlineMax) {
            ASSERT_TRUE(c.HasMember("data")) << str(c, "name") << " of " << size << " bytes";
            EXPECT_FALSE(c.HasMember("chunks"));
            EXPECT_EQ(static_cast<long long>(crypto::b64url_decode(str(c, "data"))->size()), size);
        } else {
            ASSERT_TRUE(c.HasMember("chunks")) << str(c, "name") << " of " << size << " bytes";
            EXPECT_FALSE(c.HasMember("data"));
            long long total = 0;
            for (const auto& ch : c["chunks"].GetArray()) {
                EXPECT_LE(ch["size"].GetInt64(), kChunkSize);
                EXPECT_EQ(str(ch, "blob_id").size(), 43u);
                EXPECT_EQ(str(ch, "key").size(), 43u);
                EXPECT_EQ(str(ch, "hash").size(), 43u);
                total += ch["size"].GetInt64();
            }
            EXPECT_EQ(total, size);
        }
        EXPECT_EQ(str(a, "signature").size(), 86u);
        EXPECT_TRUE(crypto::es256_is_low_s(*crypto::b64url_decode(str(a, "signature"))));
        EXPECT_EQ(str(a, "name_index").size(), 43u);
    }
    // The chunked artifact is the file chunks[0] holds, one past the inline limit.
    EXPECT_EQ(V("artifacts")[1]["content"]["size"].GetInt64(), kInlineMax + 1);
    EXPECT_EQ(str(V("artifacts")[1]["content"]["chunks"][0], "blob_id"),
              str(V("chunks")[0]["entry"], "blob_id"));
    for (const auto& c : V("chunks").GetArray())
        EXPECT_EQ(c["stored_size"].GetInt64(), c["entry"]["size"].GetInt64() + 28);

    for (const auto& e : V("roster")["entries"].GetArray()) {
        const auto& b = e["body"];
        bool remove = str(b, "kind") == "remove";
        EXPECT_EQ(b.MemberCount(), remove ? 12u : 11u);
        EXPECT_EQ(b.HasMember("rotated_to"), remove);
        if (remove) {
            EXPECT_GE(b["rotated_to"].GetInt64(), 2);
        }
        EXPECT_LE(str(b, "label").size(), 64u);
        EXPECT_TRUE(crypto::es256_is_low_s(*crypto::b64url_decode(str(e, "signature"))));
    }
    const auto& env = V("key_envelope")["envelope"];
    EXPECT_EQ(str(env, "hpke_enc").size(), 87u);
    EXPECT_EQ(str(env, "ciphertext").size(), 64u);
    EXPECT_TRUE(crypto::es256_is_low_s(*crypto::b64url_decode(str(env, "signature"))));
    for (const auto& r : V("refusals")["key_envelopes"].GetArray())
        EXPECT_TRUE(
            crypto::es256_is_low_s(*crypto::b64url_decode(str(r["envelope"], "signature"))));
}

TEST(ClientFormatVectors, AReaderRefusesWhatTheRefusalVectorsRefuse) {
    const auto& v = V("refusals");
    std::vector<SignedStatement> chain;
    for (const auto& e : V("roster")["entries"].GetArray())
        chain.push_back({str(e, "statement"), str(e, "signature")});
    Roster r = verify_roster(chain);
    const Member* cli = r.find(str(V("ids"), "cli_member_id"));
    ASSERT_TRUE(cli);
    EXPECT_EQ(cli->rotated_to, v["rotated_to"].GetInt64());
    P256PrivateKey reader = priv(v["reader_private_jwk"]);
    for (const auto& c : v["key_envelopes"].GetArray()) {
        SCOPED_TRACE(str(c, "case"));
        KeyEnvelope e = KeyEnvelope::from_json(c["envelope"]);
        std::string why = envelope_refusal(e, r, str(v, "pouch_id"), str(v, "reader_member_id"));
        EXPECT_EQ(why, c["refusal"].IsNull() ? "" : str(c, "refusal"));
        if (!why.empty()) continue;
        const Member* creator = r.find(e.created_by_member);
        ASSERT_TRUE(creator);
        if (c["accepted"].GetBool()) {
            EXPECT_EQ(crypto::to_hex(open_key_envelope(e, creator->sign_pub, reader)),
                      str(c, "pouch_key_hex"));
        } else {
            EXPECT_THROW(open_key_envelope(e, creator->sign_pub, reader), FormatError);
        }
    }
    for (const auto& c : v["revisions"].GetArray()) {
        SCOPED_TRACE(str(c, "case"));
        const Member* signer = r.find(str(c, "signer_member_id"));
        ASSERT_TRUE(signer);
        RevisionIds ids{str(c, "pouch_id"), str(c, "artifact_id"), str(c, "revision_id"),
                        c["key_gen"].GetInt64()};
        // The signature itself verifies either way: the signer's trust at key_gen decides.
        EXPECT_TRUE(
            verify_revision(signer->sign_pub, ids, str(c, "envelope"), str(c, "signature")));
        EXPECT_EQ(signer->trusted_at(ids.key_gen), c["accepted"].GetBool());
        EXPECT_EQ(open_envelope(unhex(str(c, "pouch_key_hex")), ids, str(c, "envelope")).jcs(),
                  str(c, "content_jcs"));
    }
}

// ---- sharing (docs/SHARING.md) -----------------------------------------------------------

namespace {

const rapidjson::Value& SH(const char* k) {
    return V("sharing")[k];
}

SignedStatement signed_of(const rapidjson::Value& v) {
    return {str(v, "statement"), str(v, "signature")};
}

std::vector<SignedStatement> items_of(const rapidjson::Value& arr, size_t n) {
    std::vector<SignedStatement> out;
    for (rapidjson::SizeType i = 0; i < arr.Size() && out.size() < n; ++i)
        out.push_back(signed_of(arr[i]));
    return out;
}

IdentityBody identity_body_of(const rapidjson::Value& b) {
    IdentityBody out;
    out.account_id = str(b, "account_id");
    out.genesis_hash = str(b, "genesis_hash");
    out.by = str(b, "by");
    out.sign_pub = jwk(b["sign_pub"]);
    out.enc_pub = jwk(b["enc_pub"]);
    out.at = str(b, "at");
    return out;
}

PublicIdentity public_identity_of(const rapidjson::Value& v) {
    return {str(v, "account_id"), jwk(v["sign_pub"]), jwk(v["enc_pub"])};
}

}  // namespace

TEST(ClientFormatVectors, SharingIdentitiesAreOurJcsAndBindToTheirGenesis) {
    for (const auto& a : SH("accounts").GetObject()) {
        const auto& v = a.value;
        IdentityBody body = identity_body_of(v["identity_body"]);
        EXPECT_EQ(body.jcs(), str(v, "identity_jcs"));
        EXPECT_EQ(statement_hash(str(v["genesis"], "statement")), str(v, "genesis_hash"));
        IdentityBody got = verify_identity(signed_of(v["identity"]), signed_of(v["genesis"]));
        EXPECT_EQ(got.account_id, str(v, "account_id"));
        EXPECT_EQ(got.by, str(v, "genesis_member_id"));
        EXPECT_EQ(priv(v["identity_sign_private_jwk"]).x(), got.sign_pub.x);
        EXPECT_EQ(priv(v["identity_enc_private_jwk"]).y(), got.enc_pub.y);
    }
    for (const auto& c : SH("refusals")["identities"].GetArray())
        EXPECT_THROW(verify_identity(signed_of(c["identity"]), signed_of(c["genesis"])),
                     FormatError)
            << str(c, "case");
}

TEST(ClientFormatVectors, SharingIdentityEnvelopeSealsByteForByteAndOpens) {
    const auto& v = SH("identity_envelope");
    const auto& bea = SH("accounts")["bea"];
    IdentityBody expected = identity_body_of(bea["identity_body"]);
    EXPECT_EQ(crypto::to_hex(identity_envelope_info(str(v, "account_id"), str(v, "member_id"))),
              str(v, "info_hex"));
    P256PrivateKey eph = crypto::hpke::derive_key_pair(unhex(str(v, "ekm_hex")));
    IdentityKeys keys{priv(bea["identity_sign_private_jwk"]),
                      priv(bea["identity_enc_private_jwk"])};
    IdentityEnvelope ours = seal_identity_envelope(
        str(v, "account_id"), str(v, "member_id"), jwk(v["recipient_public_jwk"]), keys,
        str(v, "created_by_member"), priv(bea["member_sign_private_jwk"]), &eph);
    EXPECT_EQ(ours.hpke_enc, str(v["envelope"], "hpke_enc"));
    EXPECT_EQ(ours.ciphertext, str(v["envelope"], "ciphertext"));
    IdentityEnvelope theirs = IdentityEnvelope::from_json(v["envelope"]);
    EXPECT_EQ(theirs.signed_bytes(), str(v, "signing_input_jcs"));
    IdentityKeys opened = open_identity_envelope(theirs, jwk(v["creator_public_jwk"]),
                                                 priv(v["recipient_private_jwk"]), expected);
    EXPECT_EQ(opened.sign.scalar(), keys.sign.scalar());
    EXPECT_EQ(opened.enc.scalar(), keys.enc.scalar());
    open_identity_envelope(ours, jwk(v["creator_public_jwk"]), priv(v["recipient_private_jwk"]),
                           expected);
    for (const auto& c : SH("refusals")["identity_envelopes"].GetArray())
        EXPECT_THROW(
            open_identity_envelope(
                IdentityEnvelope::from_json(c["envelope"]), jwk(v["creator_public_jwk"]),
                priv(v["recipient_private_jwk"]),
                identity_body_of(SH("accounts")[str(c, "account").c_str()]["identity_body"])),
            FormatError)
            << str(c, "case");
}

TEST(ClientFormatVectors, SharingSafetyNumbersMatchBothWays) {
    for (const auto& c : SH("safety_numbers").GetArray()) {
        PublicIdentity a = public_identity_of(c["a"]), b = public_identity_of(c["b"]);
        EXPECT_EQ(crypto::to_hex(identity_fingerprint(a)), str(c, "fingerprint_a_hex"));
        EXPECT_EQ(crypto::to_hex(identity_fingerprint(b)), str(c, "fingerprint_b_hex"));
        EXPECT_EQ(crypto::to_hex(safety_number_bytes(a, b)), str(c, "bytes_hex"));
        EXPECT_EQ(safety_number(a, b), str(c, "digits"));
        EXPECT_EQ(safety_number(b, a), str(c, "digits"));
        EXPECT_EQ(safety_number_qr_text(a, b), str(c, "qr_text"));
    }
}

TEST(ClientFormatVectors, SharingAccessListIsOurJcsVerifiesAndGivesTheRolesByGeneration) {
    const auto& v = SH("access_list");
    for (const auto& e : v["entries"].GetArray()) {
        const auto& b = e["body"];
        AccessBody body;
        body.pouch_id = str(b, "pouch_id");
        body.seq = b["seq"].GetInt64();
        body.prev = str(b, "prev");
        body.kind = str(b, "kind");
        body.by = str(b, "by");
        body.account_id = str(b, "account_id");
        body.identity_sign_pub = jwk(b["identity"]["sign_pub"]);
        body.identity_enc_pub = jwk(b["identity"]["enc_pub"]);
        body.role = str(b, "role");
        body.key_gen = b["key_gen"].GetInt64();
        body.at = str(b, "at");
        if (b.HasMember("rotated_to")) body.rotated_to = b["rotated_to"].GetInt64();
        EXPECT_EQ(body.jcs(), str(e, "jcs"));
        EXPECT_EQ(decode_access(str(e, "statement")).jcs(), str(e, "jcs"));
        EXPECT_EQ(statement_hash(str(e, "statement")), str(e, "hash"));
    }
    AccessList list = verify_access_list(str(v, "pouch_id"), items_of(v["entries"], 1000));
    EXPECT_EQ(list.owner, str(v, "owner"));
    EXPECT_EQ(list.key_gen, v["key_gen"].GetInt64());
    EXPECT_EQ(list.head_seq, v["head"]["seq"].GetInt64());
    EXPECT_EQ(list.head_hash, str(v["head"], "hash"));
    for (const auto& r : v["role_at"].GetArray()) {
        const AccessEntry* e = list.find(str(r, "account_id"));
        std::string got = e ? e->role_at(r["key_gen"].GetInt64()) : "";
        EXPECT_EQ(got, str(r, "role")) << str(r, "account_id") << " at " << r["key_gen"].GetInt64();
    }
    for (const auto& r : SH("refusals")["revisions"].GetArray()) {
        std::string want = r["refusal"].IsNull() ? "" : str(r, "refusal");
        EXPECT_EQ(list.revision_refusal(str(r, "account_id"), r["key_gen"].GetInt64()), want)
            << str(r, "case");
    }
}

TEST(ClientFormatVectors, SharingAccessListsAreRefusedAtTheStatementTheVectorsName) {
    for (const auto& c : SH("refusals")["access_lists"].GetArray()) {
        size_t at = static_cast<size_t>(c["fails_at"].GetInt64());
        if (at > 0) verify_access_list(str(c, "pouch_id"), items_of(c["items"], at));
        try {
            verify_access_list(str(c, "pouch_id"), items_of(c["items"], 1000));
            ADD_FAILURE() << str(c, "case") << " was accepted";
        } catch (const FormatError& e) {
            EXPECT_EQ(
                std::string(e.what()).rfind("access statement " + std::to_string(at) + ":", 0), 0u)
                << str(c, "case") << ": " << e.what();
        }
    }
}

TEST(ClientFormatVectors, SharingKeyGrantsSealByteForByteAndAReaderRefusesWhatTheyRefuse) {
    const auto& v = SH("key_grants");
    const auto& al = SH("access_list");
    AccessList list = verify_access_list(str(al, "pouch_id"), items_of(al["entries"], 1000));
    P256PrivateKey reader = priv(v["reader_private_jwk"]);
    std::string pouch = str(v, "pouch_id"), account = str(v, "reader_account_id");
    for (const auto& c : v["grants"].GetArray()) {
        KeyGrant theirs = KeyGrant::from_json(c["grant"]);
        EXPECT_EQ(crypto::to_hex(key_grant_info(pouch, account, theirs.key_gen)),
                  str(c, "info_hex"));
        EXPECT_EQ(theirs.signed_bytes(), str(c, "signing_input_jcs"));
        P256PrivateKey eph = crypto::hpke::derive_key_pair(unhex(str(c, "ekm_hex")));
        std::string by = str(c, "granted_by");
        const char* name = by == str(SH("accounts")["owner"], "account_id") ? "owner" : "cy";
        KeyGrant ours = seal_key_grant(
            pouch, account, theirs.key_gen, jwk(SH("accounts")["bea"]["identity_body"]["enc_pub"]),
            unhex(str(c, "pouch_key_hex")), by,
            priv(SH("accounts")[name]["identity_sign_private_jwk"]), &eph);
        EXPECT_EQ(ours.hpke_enc, theirs.hpke_enc);
        EXPECT_EQ(ours.ciphertext, theirs.ciphertext);
        EXPECT_EQ(grant_refusal(theirs, list, pouch, account), "");
        EXPECT_EQ(grant_refusal(ours, list, pouch, account), "");
        EXPECT_EQ(crypto::to_hex(open_key_grant(theirs, reader)), str(c, "pouch_key_hex"));
    }
    for (const auto& c : SH("refusals")["key_grants"].GetArray()) {
        KeyGrant g = KeyGrant::from_json(c["grant"]);
        std::string want = c["refusal"].IsNull() ? "" : str(c, "refusal");
        EXPECT_EQ(grant_refusal(g, list, pouch, account), want) << str(c, "case");
        if (!want.empty()) continue;
        if (c["accepted"].GetBool())
            EXPECT_EQ(crypto::to_hex(open_key_grant(g, reader)), str(c, "pouch_key_hex"))
                << str(c, "case");
        else
            EXPECT_THROW(open_key_grant(g, reader), FormatError) << str(c, "case");
    }
}
