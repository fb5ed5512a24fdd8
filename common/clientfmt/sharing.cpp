// sharing.cpp -- identity statements and envelopes, the safety number, the access list and key
// grants of docs/SHARING.md (sharing.h), on the JCS, ES256, HPKE and BLAKE3 helpers the roster
// and key envelopes use.
#include "common/clientfmt/sharing.h"

#include <cstdio>

#include "common/crypto/b64url.h"
#include "common/crypto/es256.h"
#include "common/crypto/hash.h"
#include "common/crypto/hpke.h"
#include "common/json/out.h"

namespace pouch::clientfmt {

namespace {

bool verifies(const PublicJwk& pub, std::string_view msg, std::string_view sig_b64) {
    auto key = crypto::P256PublicKey::from_jwk(pub.x, pub.y);
    auto sig = crypto::b64url_decode(sig_b64);
    return key && sig && key->verify(msg, *sig);
}

// A lower-case UUID field (statements carry ids exactly as JCS wrote them).
std::string get_id(const rapidjson::Value& o, const char* name) {
    std::string s = get_str(o, name);
    if (!is_uuid(s) || lower_uuid(s) != s)
        throw FormatError(std::string("'") + name + "' must be a lower-case UUID");
    return s;
}

std::string seal_to(const PublicJwk& to, const std::string& info, std::string_view secret,
                    const crypto::P256PrivateKey* ephemeral, std::string& enc_out) {
    crypto::hpke::Sender sender = ephemeral
                                      ? crypto::hpke::setup_base_s(to.point(), info, *ephemeral)
                                      : crypto::hpke::setup_base_s(to.point(), info);
    enc_out = crypto::b64url_encode(sender.enc);
    return crypto::b64url_encode(sender.ctx.seal("", secret));
}

std::optional<std::string> open_from(const crypto::P256PrivateKey& key, std::string_view enc_b64,
                                     std::string_view ct_b64, const std::string& info) {
    auto enc = crypto::b64url_decode(enc_b64);
    auto ct = crypto::b64url_decode(ct_b64);
    if (!enc || !ct) return std::nullopt;
    return crypto::hpke::open(key, *enc, info, "", *ct);
}

}  // namespace

// ---- identity ----------------------------------------------------------------------------

std::string IdentityBody::jcs() const {
    json::Out o;
    o.kv("v", 1).kv("kind", "identity").kv("account_id", lower_uuid(account_id));
    o.kv("genesis_hash", genesis_hash).kv("by", lower_uuid(by));
    o.key("sign_pub").raw(sign_pub.json());
    o.key("enc_pub").raw(enc_pub.json());
    o.kv("at", at);
    return jcs_of(o.done());
}

SignedStatement sign_identity(const IdentityBody& body,
                              const crypto::P256PrivateKey& genesis_member_key) {
    std::string c = body.jcs();
    return {crypto::b64url_encode(c), crypto::b64url_encode(genesis_member_key.sign_es256(c))};
}

IdentityBody decode_identity(std::string_view statement) {
    auto bytes = crypto::b64url_decode(statement);
    if (!bytes) throw FormatError("identity statement is not b64url");
    rapidjson::Document d = parse_object(*bytes, true);
    if (d.MemberCount() != 8)
        throw FormatError(
            "identity statement must have exactly v, kind, account_id, genesis_hash, by, "
            "sign_pub, enc_pub and at");
    if (get_int(d, "v") != 1) throw FormatError("identity statement version is not 1");
    if (get_str(d, "kind") != "identity") throw FormatError("statement kind is not 'identity'");
    IdentityBody b;
    b.account_id = get_id(d, "account_id");
    b.genesis_hash = get_str(d, "genesis_hash");
    if (!is_b64url32(b.genesis_hash)) throw FormatError("genesis_hash is not a BLAKE3 hash");
    b.by = get_id(d, "by");
    b.sign_pub = PublicJwk::from_json(get_obj(d, "sign_pub"), "sign_pub");
    b.enc_pub = PublicJwk::from_json(get_obj(d, "enc_pub"), "enc_pub");
    b.at = get_str(d, "at");
    return b;
}

IdentityBody verify_identity(const SignedStatement& identity, const SignedStatement& genesis) {
    IdentityBody b = decode_identity(identity.statement);
    Roster g;
    try {
        g = verify_roster({genesis});
    } catch (const FormatError& e) {
        throw FormatError(std::string("identity of account ") + b.account_id +
                          ": its genesis does not verify (" + e.what() + ")");
    }
    if (statement_hash(genesis.statement) != b.genesis_hash)
        throw FormatError("identity of account " + b.account_id +
                          ": genesis_hash does not hash the genesis given");
    const StatementBody& gb = g.bodies.front();
    if (gb.member_id != b.by)
        throw FormatError("identity of account " + b.account_id + ": signed by " + b.by +
                          ", not the genesis member " + gb.member_id);
    if (!verifies(gb.sign_pub, *crypto::b64url_decode(identity.statement), identity.signature))
        throw FormatError("identity of account " + b.account_id +
                          ": the signature does not verify with the genesis member's key");
    return b;
}

namespace {

void write_fields(json::Out& o, const IdentityEnvelope& e) {
    o.kv("account_id", lower_uuid(e.account_id)).kv("member_id", lower_uuid(e.member_id));
    o.kv("hpke_enc", e.hpke_enc).kv("ciphertext", e.ciphertext);
    o.kv("created_by_member", lower_uuid(e.created_by_member));
}

}  // namespace

std::string IdentityEnvelope::json() const {
    json::Out o;
    write_fields(o, *this);
    o.kv("signature", signature);
    return o.done();
}

std::string IdentityEnvelope::signed_bytes() const {
    json::Out o;
    write_fields(o, *this);
    return jcs_of(o.done());
}

IdentityEnvelope IdentityEnvelope::from_json(const rapidjson::Value& v) {
    if (!v.IsObject()) throw FormatError("an identity envelope must be an object");
    IdentityEnvelope e;
    e.account_id = lower_uuid(get_str(v, "account_id"));
    e.member_id = lower_uuid(get_str(v, "member_id"));
    e.hpke_enc = get_str(v, "hpke_enc");
    e.ciphertext = get_str(v, "ciphertext");
    e.created_by_member = lower_uuid(get_str(v, "created_by_member"));
    e.signature = get_str(v, "signature");
    return e;
}

std::string identity_envelope_info(std::string_view account_id, std::string_view member_id) {
    return "pouch/identity-envelope/v1" + id_bytes(account_id) + id_bytes(member_id);
}

IdentityEnvelope seal_identity_envelope(std::string_view account_id, std::string_view member_id,
                                        const PublicJwk& member_enc_pub,
                                        const IdentityKeys& identity,
                                        std::string_view creator_member_id,
                                        const crypto::P256PrivateKey& creator_sign_key,
                                        const crypto::P256PrivateKey* ephemeral) {
    json::Out s;
    s.kv("sign_d", crypto::b64url_encode(identity.sign.scalar()))
        .kv("enc_d", crypto::b64url_encode(identity.enc.scalar()));
    std::string secret = jcs_of(s.done());
    IdentityEnvelope e;
    e.account_id = lower_uuid(account_id);
    e.member_id = lower_uuid(member_id);
    e.ciphertext = seal_to(member_enc_pub, identity_envelope_info(account_id, member_id), secret,
                           ephemeral, e.hpke_enc);
    e.created_by_member = lower_uuid(creator_member_id);
    e.signature = crypto::b64url_encode(creator_sign_key.sign_es256(e.signed_bytes()));
    return e;
}

IdentityKeys open_identity_envelope(const IdentityEnvelope& e, const PublicJwk& creator_sign_pub,
                                    const crypto::P256PrivateKey& member_enc_key,
                                    const IdentityBody& expected) {
    std::string where = "identity envelope of account " + e.account_id + " for " + e.member_id;
    if (e.account_id != lower_uuid(expected.account_id))
        throw FormatError(where + ": not the account of the identity statement");
    if (!verifies(creator_sign_pub, e.signed_bytes(), e.signature))
        throw FormatError(where + ": the signature of " + e.created_by_member + " does not verify");
    auto pt = open_from(member_enc_key, e.hpke_enc, e.ciphertext,
                        identity_envelope_info(e.account_id, e.member_id));
    if (!pt) throw FormatError(where + ": does not open with this member's key");
    rapidjson::Document d;
    try {
        d = parse_object(*pt, true);
    } catch (const FormatError& err) {
        throw FormatError(where + ": the secret is not JCS (" + err.what() + ")");
    }
    if (d.MemberCount() != 2) throw FormatError(where + ": the secret must be {sign_d, enc_d}");
    auto scalar = [&](const char* name) {
        std::string v = get_str(d, name);
        auto raw = crypto::b64url_decode(v);
        std::optional<crypto::P256PrivateKey> k;
        if (v.size() == 43 && raw && raw->size() == 32)
            k = crypto::P256PrivateKey::from_scalar(*raw);
        if (!k) throw FormatError(where + ": " + name + " is not a P-256 scalar");
        return *k;
    };
    IdentityKeys keys{scalar("sign_d"), scalar("enc_d")};
    if (!(PublicJwk{keys.sign.x(), keys.sign.y()} == expected.sign_pub) ||
        !(PublicJwk{keys.enc.x(), keys.enc.y()} == expected.enc_pub))
        throw FormatError(where + ": the keys are not those of the account's identity");
    return keys;
}

// ---- safety number -------------------------------------------------------------------------

std::string identity_fingerprint(const PublicIdentity& x) {
    return crypto::blake3_256("pouch/safety-number/v1" + id_bytes(x.account_id) +
                              jcs_of(x.sign_pub.json()) + jcs_of(x.enc_pub.json()));
}

std::string safety_number_bytes(const PublicIdentity& a, const PublicIdentity& b) {
    std::string ia = id_bytes(a.account_id), ib = id_bytes(b.account_id);
    if (ia == ib) throw FormatError("a safety number needs two different accounts");
    return ia < ib ? identity_fingerprint(a) + identity_fingerprint(b)
                   : identity_fingerprint(b) + identity_fingerprint(a);
}

std::string safety_number(const PublicIdentity& a, const PublicIdentity& b) {
    std::string bytes = safety_number_bytes(a, b);
    std::string out;
    for (size_t i = 0; i < 12; ++i) {
        uint64_t n = 0;
        for (size_t j = 0; j < 5; ++j) n = (n << 8) | static_cast<unsigned char>(bytes[5 * i + j]);
        char group[6];
        std::snprintf(group, sizeof group, "%05u", static_cast<unsigned>(n % 100000));
        if (i) out += ' ';
        out += group;
    }
    return out;
}

std::string safety_number_qr_text(const PublicIdentity& a, const PublicIdentity& b) {
    return "pouch-sn1:" + crypto::b64url_encode(safety_number_bytes(a, b));
}

// ---- access list ---------------------------------------------------------------------------

namespace {

bool is_role(const std::string& r) {
    return r == "read" || r == "write" || r == "admin";
}

int role_rank(const std::string& r) {
    return r == "admin" ? 3 : r == "write" ? 2 : r == "read" ? 1 : 0;
}

}  // namespace

std::string AccessBody::jcs() const {
    json::Out o;
    o.kv("v", 1).kv("pouch_id", lower_uuid(pouch_id)).kv("seq", seq).kv("prev", prev);
    o.kv("kind", kind).kv("by", lower_uuid(by)).kv("account_id", lower_uuid(account_id));
    o.key("identity").obj();
    o.key("sign_pub").raw(identity_sign_pub.json());
    o.key("enc_pub").raw(identity_enc_pub.json());
    o.end_obj();
    o.kv("role", role).kv("key_gen", key_gen).kv("at", at);
    if (rotated_to) o.kv("rotated_to", *rotated_to);
    return jcs_of(o.done());
}

SignedStatement sign_access(const AccessBody& body,
                            const crypto::P256PrivateKey& identity_sign_key) {
    std::string c = body.jcs();
    return {crypto::b64url_encode(c), crypto::b64url_encode(identity_sign_key.sign_es256(c))};
}

AccessBody decode_access(std::string_view statement) {
    auto bytes = crypto::b64url_decode(statement);
    if (!bytes) throw FormatError("access statement is not b64url");
    rapidjson::Document d = parse_object(*bytes, true);
    if (get_int(d, "v") != 1) throw FormatError("access statement version is not 1");
    AccessBody b;
    b.kind = get_str(d, "kind");
    if (b.kind != "share" && b.kind != "role" && b.kind != "remove" && b.kind != "leave")
        throw FormatError("unknown access statement kind '" + b.kind + "'");
    bool rotates = b.kind == "remove" || b.kind == "leave";
    if (d.MemberCount() != (rotates ? 12u : 11u) || rotates != d.HasMember("rotated_to"))
        throw FormatError(
            "access statement must have exactly v, pouch_id, seq, prev, kind, by, account_id, "
            "identity, role, key_gen and at, and rotated_to when (and only when) it is a remove "
            "or a leave");
    b.pouch_id = get_id(d, "pouch_id");
    b.seq = get_int(d, "seq");
    b.prev = get_str(d, "prev");
    b.by = get_id(d, "by");
    b.account_id = get_id(d, "account_id");
    const rapidjson::Value& ident = get_obj(d, "identity");
    if (ident.MemberCount() != 2)
        throw FormatError("'identity' must have exactly sign_pub and enc_pub");
    b.identity_sign_pub = PublicJwk::from_json(get_obj(ident, "sign_pub"), "identity.sign_pub");
    b.identity_enc_pub = PublicJwk::from_json(get_obj(ident, "enc_pub"), "identity.enc_pub");
    b.role = get_str(d, "role");
    if (!is_role(b.role)) throw FormatError("role must be read, write or admin");
    b.key_gen = get_int(d, "key_gen");
    if (b.key_gen < 1) throw FormatError("key_gen must be 1 or more");
    b.at = get_str(d, "at");
    if (rotates) {
        b.rotated_to = get_int(d, "rotated_to");
        if (*b.rotated_to != b.key_gen) throw FormatError("rotated_to must equal key_gen");
    }
    return b;
}

std::string AccessEntry::role_at(long long k) const {
    std::string r;
    for (const auto& [from, role] : history)
        if (from <= k) r = role;
    return r;
}

bool AccessEntry::grants_trusted_at(long long k) const {
    if (in_list) return true;
    for (auto it = history.rbegin(); it != history.rend(); ++it)
        if (it->second.empty()) return k < it->first;  // the generation it was rotated out at
    return false;
}

const AccessEntry* AccessList::find(const std::string& account_id) const {
    auto it = accounts.find(account_id);
    return it == accounts.end() ? nullptr : &it->second;
}

bool AccessList::may_write_at(const std::string& account_id, long long k) const {
    const AccessEntry* e = find(account_id);
    if (!e) return false;
    std::string r = e->role_at(k);
    return r == "write" || r == "admin";
}

std::string AccessList::revision_refusal(const std::string& account_id, long long k) const {
    const AccessEntry* e = find(account_id);
    std::string r = e ? e->role_at(k) : "";
    if (r.empty()) return "not_in_access_list";
    return r == "read" ? "role_forbids_write" : "";
}

std::string AccessList::hash_at(long long seq) const {
    if (seq < 0 || seq >= static_cast<long long>(statements.size()))
        throw FormatError("the access list has no statement " + std::to_string(seq));
    return statement_hash(statements[static_cast<size_t>(seq)].statement);
}

AccessList verify_access_list(std::string_view pouch_id, std::vector<SignedStatement> statements) {
    AccessList l;
    l.pouch_id = lower_uuid(pouch_id);
    if (statements.empty()) throw AccessListError("the access list is empty", 0, "statement");
    for (size_t i = 0; i < statements.size(); ++i) {
        const SignedStatement& s = statements[i];
        auto fail = [&](const std::string& why, const char* field) {
            return AccessListError("access statement " + std::to_string(i) + ": " + why,
                                   static_cast<long long>(i), field);
        };
        // 1. shape and chain
        AccessBody b;
        try {
            b = decode_access(s.statement);
        } catch (const FormatError& e) {
            throw fail(e.what(), "statement");
        }
        if (b.pouch_id != l.pouch_id) throw fail("names pouch " + b.pouch_id, "pouch_id");
        if (b.seq != static_cast<long long>(i))
            throw fail("seq is " + std::to_string(b.seq), "seq");
        std::string want_prev = i == 0 ? "" : statement_hash(statements[i - 1].statement);
        if (b.prev != want_prev) throw fail("prev does not hash the previous statement", "prev");
        std::string signed_bytes = *crypto::b64url_decode(s.statement);
        PublicJwk ident_sign = b.identity_sign_pub, ident_enc = b.identity_enc_pub;

        if (i == 0) {
            // 2. the owner's own entry
            if (b.kind != "share") throw fail("statement 0 must be a share", "kind");
            if (b.by != b.account_id)
                throw fail("statement 0 must be the owner's own share", "account_id");
            if (b.role != "admin") throw fail("statement 0 must give the owner role admin", "role");
            if (!verifies(ident_sign, signed_bytes, s.signature))
                throw fail("signature does not verify with the owner's identity", "signature");
            l.owner = b.account_id;
            AccessEntry& e = l.accounts[b.account_id];
            e.account_id = b.account_id;
            e.sign_pub = ident_sign;
            e.enc_pub = ident_enc;
            e.role = "admin";
            e.in_list = true;
            e.shared_seq = 0;
            // The pouch was the owner's alone before it was shared: admin from generation 1.
            e.history.emplace_back(1, "admin");
            l.key_gen = b.key_gen;
        } else {
            // 3. who signs
            const AccessEntry* signer = l.find(b.by);
            if (b.kind == "leave") {
                if (b.by != b.account_id)
                    throw fail("a leave must be signed by its own account", "by");
                if (!signer || !signer->in_list)
                    throw fail("leave by " + b.by + ", not in the list", "by");
            } else {
                if (!signer || !signer->in_list)
                    throw fail("signed by " + b.by + ", not in the list", "by");
                if (signer->role != "admin")
                    throw fail("signed by " + b.by + " with role " + signer->role + ", not admin",
                               "by");
            }
            if (!verifies(signer->sign_pub, signed_bytes, s.signature))
                throw fail("signature does not verify with " + b.by + "'s identity", "signature");
            const AccessEntry* about = l.find(b.account_id);
            bool in = about && about->in_list;
            if (in && (!(about->sign_pub == ident_sign) || !(about->enc_pub == ident_enc)))
                throw fail("names " + b.account_id + " with an identity other than its own",
                           "identity");
            // 4. what it may say about whom
            if (b.kind == "share" && in)
                throw fail("shares with " + b.account_id + ", already in the list", "account_id");
            if (b.kind != "share" && !in)
                throw fail(b.kind + " of " + b.account_id + ", not in the list", "account_id");
            if (b.kind == "remove" && b.account_id == b.by)
                throw fail("an account cannot remove itself (it leaves)", "account_id");
            if ((b.kind == "remove" || b.kind == "leave") && b.role != about->role)
                throw fail(b.kind + " of " + b.account_id + " names role " + b.role +
                               ", not its role " + about->role,
                           "role");
            // 5. generations
            if (b.key_gen < l.key_gen)
                throw fail("key_gen " + std::to_string(b.key_gen) + " is below " +
                               std::to_string(l.key_gen),
                           "key_gen");
            bool lowers = b.kind == "role" && role_rank(b.role) < role_rank(about->role);
            bool rotates = b.kind == "remove" || b.kind == "leave" || lowers;
            if (rotates && b.key_gen <= l.key_gen)
                throw fail(b.kind + (lowers ? " lowering a role" : "") +
                               " must move to a new generation above " + std::to_string(l.key_gen),
                           "key_gen");
            AccessEntry& e = l.accounts[b.account_id];
            e.account_id = b.account_id;
            if (b.kind == "share") {
                e.sign_pub = ident_sign;
                e.enc_pub = ident_enc;
                e.shared_seq = b.seq;
            }
            bool out = b.kind == "remove" || b.kind == "leave";
            e.in_list = !out;
            e.role = out ? "" : b.role;
            e.history.emplace_back(b.key_gen, e.role);
            l.key_gen = b.key_gen;
        }
        // 6. an admin always remains
        bool admin = false;
        for (const auto& [id, e] : l.accounts) admin = admin || (e.in_list && e.role == "admin");
        if (!admin) throw fail("leaves the pouch without an admin", "role");
        l.bodies.push_back(std::move(b));
    }
    l.head_seq = static_cast<long long>(statements.size()) - 1;
    l.head_hash = statement_hash(statements.back().statement);
    l.statements = std::move(statements);
    return l;
}

// ---- key grants ----------------------------------------------------------------------------

namespace {

void write_fields(json::Out& o, const KeyGrant& g) {
    o.kv("pouch_id", lower_uuid(g.pouch_id)).kv("account_id", lower_uuid(g.account_id));
    o.kv("key_gen", g.key_gen).kv("hpke_enc", g.hpke_enc).kv("ciphertext", g.ciphertext);
    o.kv("granted_by", lower_uuid(g.granted_by));
}

}  // namespace

std::string KeyGrant::json() const {
    json::Out o;
    write_fields(o, *this);
    o.kv("signature", signature);
    return o.done();
}

std::string KeyGrant::signed_bytes() const {
    json::Out o;
    write_fields(o, *this);
    return jcs_of(o.done());
}

KeyGrant KeyGrant::from_json(const rapidjson::Value& v) {
    if (!v.IsObject()) throw FormatError("a key grant must be an object");
    KeyGrant g;
    g.pouch_id = lower_uuid(get_str(v, "pouch_id"));
    g.account_id = lower_uuid(get_str(v, "account_id"));
    g.key_gen = get_int(v, "key_gen");
    if (g.key_gen < 1) throw FormatError("key_gen must be 1 or more");
    g.hpke_enc = get_str(v, "hpke_enc");
    g.ciphertext = get_str(v, "ciphertext");
    g.granted_by = lower_uuid(get_str(v, "granted_by"));
    g.signature = get_str(v, "signature");
    return g;
}

std::string key_grant_info(std::string_view pouch_id, std::string_view account_id,
                           long long key_gen) {
    return "pouch/key-grant/v1" + id_bytes(pouch_id) + id_bytes(account_id) +
           u64be(static_cast<uint64_t>(key_gen));
}

KeyGrant seal_key_grant(std::string_view pouch_id, std::string_view account_id, long long key_gen,
                        const PublicJwk& account_identity_enc_pub, std::string_view pouch_key,
                        std::string_view granted_by,
                        const crypto::P256PrivateKey& granter_identity_sign_key,
                        const crypto::P256PrivateKey* ephemeral) {
    if (pouch_key.size() != 32) throw FormatError("a pouch key has 32 bytes");
    KeyGrant g;
    g.pouch_id = lower_uuid(pouch_id);
    g.account_id = lower_uuid(account_id);
    g.key_gen = key_gen;
    g.ciphertext = seal_to(account_identity_enc_pub, key_grant_info(pouch_id, account_id, key_gen),
                           pouch_key, ephemeral, g.hpke_enc);
    g.granted_by = lower_uuid(granted_by);
    g.signature = crypto::b64url_encode(granter_identity_sign_key.sign_es256(g.signed_bytes()));
    return g;
}

std::string grant_refusal(const KeyGrant& g, const AccessList& list, std::string_view pouch_id,
                          std::string_view account_id) {
    if (!is_uuid(pouch_id) || g.pouch_id != lower_uuid(pouch_id) || list.pouch_id != g.pouch_id)
        return "wrong_pouch";
    if (!is_uuid(account_id) || g.account_id != lower_uuid(account_id)) return "wrong_account";
    const AccessEntry* granter = list.find(g.granted_by);
    if (!granter || !granter->grants_trusted_at(g.key_gen)) return "unknown_granter";
    if (!verifies(granter->sign_pub, g.signed_bytes(), g.signature)) return "bad_signature";
    return "";
}

std::string open_key_grant(const KeyGrant& g, const crypto::P256PrivateKey& identity_enc_key) {
    std::string where =
        "key grant of pouch " + g.pouch_id + " key_gen " + std::to_string(g.key_gen);
    auto pt = open_from(identity_enc_key, g.hpke_enc, g.ciphertext,
                        key_grant_info(g.pouch_id, g.account_id, g.key_gen));
    if (!pt) throw FormatError(where + ": does not open with the account's identity key");
    if (pt->size() != 32) throw FormatError(where + ": the pouch key is not 32 bytes");
    return *pt;
}

}  // namespace pouch::clientfmt
