// roster.cpp -- roster statements and chain verification (roster.h): JCS bodies signed with
// ES256, hashes with BLAKE3, and the membership rules of docs/CLIENT-FORMAT.md.
#include "common/clientfmt/roster.h"

#include "common/crypto/b64url.h"
#include "common/crypto/es256.h"
#include "common/crypto/hash.h"
#include "common/json/out.h"

namespace pouch::clientfmt {

std::string StatementBody::jcs() const {
    json::Out o;
    o.kv("v", 1).kv("seq", seq).kv("prev", prev).kv("kind", kind).kv("by", lower_uuid(by));
    o.kv("member_id", lower_uuid(member_id));
    o.key("sign_pub").raw(sign_pub.json());
    o.key("enc_pub").raw(enc_pub.json());
    o.kv("label", label).kv("device_id", device_id).kv("at", at);
    if (rotated_to) o.kv("rotated_to", *rotated_to);
    return jcs_of(o.done());
}

SignedStatement sign_statement(const StatementBody& body, const crypto::P256PrivateKey& signer) {
    std::string c = body.jcs();
    return {crypto::b64url_encode(c), crypto::b64url_encode(signer.sign_es256(c))};
}

std::string statement_hash(std::string_view statement) {
    return crypto::b64url_encode(crypto::blake3_256(statement));
}

StatementBody decode_statement(std::string_view statement) {
    auto bytes = crypto::b64url_decode(statement);
    if (!bytes) throw FormatError("statement is not b64url");
    rapidjson::Document d = parse_object(*bytes, true);
    if (get_int(d, "v") != 1) throw FormatError("statement version is not 1");
    StatementBody b;
    b.kind = get_str(d, "kind");
    if (b.kind != "genesis" && b.kind != "add" && b.kind != "remove")
        throw FormatError("unknown statement kind '" + b.kind + "'");
    bool remove = b.kind == "remove";
    if (d.MemberCount() != (remove ? 12u : 11u) || remove != d.HasMember("rotated_to"))
        throw FormatError(
            "statement must have exactly v, seq, prev, kind, by, member_id, sign_pub, enc_pub, "
            "label, device_id and at, and rotated_to when (and only when) it is a remove");
    if (remove) {
        b.rotated_to = get_int(d, "rotated_to");
        if (*b.rotated_to < 2) throw FormatError("rotated_to must be 2 or more");
    }
    b.seq = get_int(d, "seq");
    b.prev = get_str(d, "prev");
    b.by = get_str(d, "by");
    b.member_id = get_str(d, "member_id");
    if (!is_uuid(b.by) || !is_uuid(b.member_id) || lower_uuid(b.by) != b.by ||
        lower_uuid(b.member_id) != b.member_id)
        throw FormatError("statement ids must be lower-case UUIDs");
    b.sign_pub = PublicJwk::from_json(get_obj(d, "sign_pub"), "sign_pub");
    b.enc_pub = PublicJwk::from_json(get_obj(d, "enc_pub"), "enc_pub");
    b.label = get_str(d, "label");
    b.device_id = get_opt_str(d, "device_id");
    if (!d.HasMember("device_id"))
        throw FormatError("'device_id' must be present (null or a UUID)");
    if (b.device_id && !is_uuid(*b.device_id)) throw FormatError("device_id must be a UUID");
    b.at = get_str(d, "at");
    return b;
}

const Member* Roster::find(const std::string& id) const {
    auto it = members.find(id);
    return it == members.end() ? nullptr : &it->second;
}

const Member* Roster::find_active(const std::string& id) const {
    const Member* m = find(id);
    return m && m->active() ? m : nullptr;
}

std::vector<const Member*> Roster::active_members() const {
    std::vector<const Member*> out;
    for (const auto& [id, m] : members)
        if (m.active()) out.push_back(&m);
    return out;
}

std::string Roster::hash_at(long long seq) const {
    if (seq < 0 || seq >= static_cast<long long>(statements.size()))
        throw FormatError("the roster has no statement " + std::to_string(seq));
    return statement_hash(statements[static_cast<size_t>(seq)].statement);
}

Roster verify_roster(std::vector<SignedStatement> statements) {
    Roster r;
    if (statements.empty()) throw FormatError("the roster is empty (no genesis)");
    for (size_t i = 0; i < statements.size(); ++i) {
        const SignedStatement& s = statements[i];
        auto fail = [&](const std::string& why) {
            return FormatError("roster statement " + std::to_string(i) + ": " + why);
        };
        StatementBody b;
        try {
            b = decode_statement(s.statement);
        } catch (const FormatError& e) {
            throw fail(e.what());
        }
        if (b.seq != static_cast<long long>(i)) throw fail("seq is " + std::to_string(b.seq));
        std::string want_prev = i == 0 ? "" : statement_hash(statements[i - 1].statement);
        if (b.prev != want_prev) throw fail("prev does not hash the previous statement");
        auto sig = crypto::b64url_decode(s.signature);
        std::string signed_bytes = *crypto::b64url_decode(s.statement);
        if (!sig) throw fail("signature is not b64url");

        if (i == 0) {
            if (b.kind != "genesis") throw fail("statement 0 must be genesis");
            if (b.by != b.member_id) throw fail("genesis must be signed by its own member");
            auto key = crypto::P256PublicKey::from_jwk(b.sign_pub.x, b.sign_pub.y);
            if (!key || !key->verify(signed_bytes, *sig))
                throw fail("genesis signature does not verify");
            r.members[b.member_id] =
                Member{b.member_id, b.sign_pub,   b.enc_pub,   b.label,
                       std::nullopt, 0,           std::nullopt, std::nullopt};
            r.genesis_hash = statement_hash(s.statement);
        } else {
            if (b.kind == "genesis") throw fail("only statement 0 may be genesis");
            const Member* signer = r.find_active(b.by);
            if (!signer) throw fail("signed by " + b.by + ", not an active member");
            auto key = crypto::P256PublicKey::from_jwk(signer->sign_pub.x, signer->sign_pub.y);
            if (!key || !key->verify(signed_bytes, *sig)) throw fail("signature does not verify");
            if (b.kind == "add") {
                if (r.find(b.member_id)) throw fail("adds " + b.member_id + ", already seen");
                r.members[b.member_id] = Member{b.member_id,  b.sign_pub, b.enc_pub,   b.label,
                                                std::nullopt, b.seq,      std::nullopt, std::nullopt};
            } else {
                auto it = r.members.find(b.member_id);
                if (it == r.members.end() || !it->second.active())
                    throw fail("removes " + b.member_id + ", not an active member");
                if (!(it->second.sign_pub == b.sign_pub) || !(it->second.enc_pub == b.enc_pub))
                    throw fail("removes " + b.member_id + " with keys other than its own");
                it->second.removed_seq = b.seq;
                it->second.rotated_to = b.rotated_to;
                it->second.device_id = b.device_id;
            }
        }
        r.bodies.push_back(std::move(b));
    }
    r.head_seq = static_cast<long long>(statements.size()) - 1;
    r.head_hash = statement_hash(statements.back().statement);
    r.statements = std::move(statements);
    return r;
}

void check_pin(const Roster& r, long long pinned_seq, const std::string& pinned_hash) {
    if (pinned_seq > r.head_seq)
        throw FormatError("the roster shrank: it ends at " + std::to_string(r.head_seq) +
                          " but statement " + std::to_string(pinned_seq) + " was seen before");
    if (r.hash_at(pinned_seq) != pinned_hash)
        throw FormatError("roster statement " + std::to_string(pinned_seq) +
                          " changed since it was verified");
}

}  // namespace pouch::clientfmt
