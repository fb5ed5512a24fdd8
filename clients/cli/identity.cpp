// identity.cpp -- this account's identity (statement checked against the own roster, private
// keys opened from this member's envelope and kept beside the device's keys) and the pins of
// other accounts' identities (identities.json), as identity.h says.
#include "clients/cli/identity.h"

#include <chrono>
#include <cstdio>

#include "clients/cli/errors.h"
#include "clients/cli/files.h"
#include "clients/cli/terminal_text.h"
#include "common/clientfmt/key_envelope.h"
#include "common/clientfmt/proofs.h"
#include "common/json/out.h"

namespace pouch::cli {

namespace fmt = pouch::clientfmt;

namespace {

constexpr const char* kSignFile = "identity.pem";
constexpr const char* kEncFile = "identity-enc.pem";

fmt::SignedStatement signed_of(const rapidjson::Value& o) {
    return {jstr(o, "statement"), jstr(o, "signature")};
}

fmt::PublicJwk jwk_of(const crypto::P256PrivateKey& k) {
    return {k.x(), k.y()};
}

std::string changed_message(const std::string& account_id) {
    return "the identity of account " + account_id +
           " is not the one this device pinned: the server, or someone with that account's "
           "keys, changed it. Nothing was sealed to it or trusted from it. Compare the new "
           "safety number with the other person (pouch verify " +
           account_id + "), then run `pouch verify " + account_id + " --accept-new`.";
}

}  // namespace

Identities::Identities(Api& api, const Config& cfg, DeviceState& device, Trust& trust,
                       const crypto::P256PrivateKey& member_sign)
    : api_(api), cfg_(cfg), device_(device), trust_(trust), member_sign_(member_sign) {}

bool Identities::is_shared(const std::string& pouch_id) {
    return access_list(pouch_id).has_value();
}

bool Identities::may_write_at(const std::string& pouch_id, const std::string& account_id,
                              long long key_gen) {
    const auto& list = access_list(pouch_id);
    return !list || list->may_write_at(fmt::lower_uuid(account_id), key_gen);
}

int Identities::fill_keys(const std::string& pouch_id) {
    return fill_from_grants(pouch_id, member_sign_);
}

void Identities::reload(const std::string& pouch_id) {
    std::string pid = fmt::lower_uuid(pouch_id);
    // At most every 30 s per pouch: a server that lists many refused revisions does not make
    // this device fetch the list and the rosters again for each.
    auto now = std::chrono::steady_clock::now();
    auto last = reloaded_.find(pid);
    if (last != reloaded_.end() && now - last->second < std::chrono::seconds(30)) return;
    reloaded_[pid] = now;
    reload_access(pid);
    for (auto it = rosters_.begin(); it != rosters_.end();)
        it = it->first.rfind(pid + "/", 0) == 0 ? rosters_.erase(it) : std::next(it);
}

// The roster of another account of the pouch, verified as a chain and bound to the identity
// the access list holds for it: the account's identity statement (`identity_statement` of
// `…/members`) verifies against the roster's statement 0 and names the list's keys, or, for an
// account no longer listed, the roster's genesis is the one pinned. nullptr when neither can be
// had (an account that never accepted); CliError kExitIntegrity when one does not verify.
const fmt::Roster* Identities::roster_of(const std::string& pouch_id,
                                         const std::string& account_id) {
    std::string key = pouch_id + "/" + account_id;
    auto cached = rosters_.find(key);
    if (cached != rosters_.end()) return cached->second ? &*cached->second : nullptr;
    std::optional<fmt::SignedStatement> identity;
    api_.list("/v1/pouches/" + pouch_id + "/members", "", [&](const rapidjson::Value& m) {
        if (fmt::lower_uuid(jstr(m, "account_id")) != account_id) return;
        if (!m.HasMember("identity_statement") || !m["identity_statement"].IsObject()) return;
        const auto& idv = m["identity_statement"];
        identity = fmt::SignedStatement{jstr(idv, "statement"), jstr(idv, "signature")};
    });
    std::vector<fmt::SignedStatement> items;
    // An account no longer listed (removed or left) has no identity statement there: its
    // roster is still bound when the pin holds its genesis (from a lookup or an invitation).
    auto pin = pin_of(account_id);
    bool by_pin = !identity && pin && !pin->genesis_hash.empty();
    if (!identity && !by_pin) {
        rosters_[key] = std::nullopt;
        return nullptr;
    }
    api_.list("/v1/pouches/" + pouch_id + "/rosters/" + account_id, "",
              [&](const rapidjson::Value& it) {
                  if (jint(it, "index") != static_cast<long long>(items.size()))
                      throw CliError(kExitIntegrity, "the roster's pages are out of order");
                  items.push_back({jstr(it, "statement"), jstr(it, "signature")});
              });
    const fmt::AccessEntry* entry = access_list(pouch_id)->find(account_id);
    try {
        fmt::Roster r = fmt::verify_roster(std::move(items));
        if (identity) {
            fmt::IdentityBody b = fmt::verify_identity(*identity, r.statements.at(0));
            if (b.account_id != account_id)
                throw fmt::FormatError("its identity names another account");
            if (!entry || !(b.sign_pub == entry->sign_pub) || !(b.enc_pub == entry->enc_pub))
                throw fmt::FormatError("its identity is not the one the access list holds");
        }
        if (pin && !pin->genesis_hash.empty() && pin->genesis_hash != r.genesis_hash)
            throw fmt::FormatError("its genesis is not the one pinned");
        // Bound by its identity statement: the pin learns the account's genesis, so its roster
        // stays bound after the account leaves the list (its older revisions stay readable).
        if (identity && pin && pin->genesis_hash.empty()) {
            pins()[account_id].genesis_hash = r.genesis_hash;
            save_pins();
        }
        rosters_[key] = std::move(r);
    } catch (const fmt::FormatError& e) {
        throw CliError(kExitIntegrity, "the roster of account " + account_id + " (pouch " +
                                           pouch_id + ") does not verify: " + e.what() +
                                           ". Nothing was trusted or changed.");
    }
    return &*rosters_[key];
}

const fmt::Member& Identities::other_signer(const std::string& pouch_id,
                                            const std::string& member_id, long long key_gen) {
    std::string pid = fmt::lower_uuid(pouch_id);
    const auto& list = access_list(pid);
    std::string where = "signed at key generation " + std::to_string(key_gen) + " by " + member_id;
    if (list) {
        for (const auto& [acc, entry] : list->accounts) {
            if (acc == fmt::lower_uuid(device_.account_id)) continue;
            const fmt::Roster* r = roster_of(pid, acc);
            const fmt::Member* m = r ? r->find(fmt::lower_uuid(member_id)) : nullptr;
            if (!m) continue;
            if (!m->trusted_at(key_gen))
                throw UntrustedItem(where + " of account " + acc +
                                    ", removed from its roster with rotated_to " +
                                    std::to_string(m->rotated_to.value_or(0)));
            if (!list->may_write_at(acc, key_gen))
                throw UntrustedItem(where + " of account " + acc +
                                    ", whose role in the pouch's access list did not allow "
                                    "writing at that generation");
            return *m;
        }
    }
    throw UntrustedItem(where + ", a member of no account of the pouch's access list");
}

const fmt::PublicIdentity& Identities::mine() {
    if (mine_) return *mine_;
    ApiAnswer a = api_.must("GET", "/v1/account/identity");
    const rapidjson::Value& d = a.data();
    if (!d.HasMember("identity") || d["identity"].IsNull())
        throw CliError(kExitFailure,
                       "this account has no identity yet: sign in to the web app once, it makes "
                       "one, then try again");
    const fmt::Roster& r = trust_.roster();
    fmt::IdentityBody body;
    try {
        body = fmt::verify_identity(signed_of(jobj(d, "identity")), r.statements.at(0));
        if (body.account_id != fmt::lower_uuid(device_.account_id))
            throw fmt::FormatError("it names another account");
        if (!r.find_active(body.by)) throw fmt::FormatError("its signer is no longer a member");
    } catch (const fmt::FormatError& e) {
        throw CliError(kExitIntegrity, std::string("this account's identity does not verify: ") +
                                           e.what() + ". Nothing was trusted or changed.");
    }
    mine_ = fmt::PublicIdentity{body.account_id, body.sign_pub, body.enc_pub};
    // A server that swaps this account's identity is caught by the pin like any other.
    if (check_listed(*mine_) == PinState::changed)
        throw CliError(kExitIntegrity, changed_message(body.account_id));

    std::string err;
    auto sign = crypto::P256PrivateKey::load(cfg_.path(kSignFile), err);
    auto enc = crypto::P256PrivateKey::load(cfg_.path(kEncFile), err);
    if (sign && enc) {
        if (!(jwk_of(*sign) == body.sign_pub) || !(jwk_of(*enc) == body.enc_pub))
            throw CliError(kExitIntegrity,
                           "the identity keys this device holds are not the account's published "
                           "identity: " +
                               changed_message(body.account_id));
        keys_ = fmt::IdentityKeys{*sign, *enc};
        return *mine_;
    }
    if (!d.HasMember("envelope") || d["envelope"].IsNull())
        throw CliError(kExitFailure,
                       "no identity envelope was sealed to this device yet: open the web app once "
                       "(it seals one to every device), then try again");
    try {
        auto e = fmt::IdentityEnvelope::from_json(jobj(d, "envelope"));
        if (fmt::lower_uuid(e.account_id) != body.account_id ||
            fmt::lower_uuid(e.member_id) != fmt::lower_uuid(device_.member_id))
            throw fmt::FormatError("the envelope is for another account or member");
        const fmt::Member* creator = r.find_active(fmt::lower_uuid(e.created_by_member));
        if (!creator) throw fmt::FormatError("its creator is not an active member");
        keys_ = fmt::open_identity_envelope(e, creator->sign_pub, cfg_.enc_key(), body);
    } catch (const fmt::FormatError& e) {
        throw CliError(kExitIntegrity,
                       std::string("this device's identity envelope is refused: ") + e.what());
    }
    cfg_.ensure_dir();
    if (!keys_->sign.save(cfg_.path(kSignFile), err) || !keys_->enc.save(cfg_.path(kEncFile), err))
        throw CliError(kExitFailure, "cannot keep the identity keys: " + err);
    return *mine_;
}

const fmt::IdentityKeys& Identities::my_keys() {
    mine();
    return *keys_;
}

std::map<std::string, Pin>& Identities::pins() {
    if (pins_) return *pins_;
    pins_.emplace();
    auto text = read_file(cfg_.path("identities.json"));
    if (!text) return *pins_;
    try {
        auto d = fmt::parse_object(*text);
        if (fmt::get_int(d, "v") != 1) throw fmt::FormatError("unknown version");
        for (const auto& p : fmt::get_arr(d, "pins").GetArray()) {
            Pin pin;
            pin.genesis_hash = fmt::get_str(p, "genesis_hash");
            pin.sign_pub = fmt::PublicJwk::from_json(fmt::get_obj(p, "sign_pub"), "sign_pub");
            pin.enc_pub = fmt::PublicJwk::from_json(fmt::get_obj(p, "enc_pub"), "enc_pub");
            if (!p.HasMember("verified") || !p["verified"].IsBool())
                throw fmt::FormatError("verified is not a boolean");
            pin.verified = p["verified"].GetBool();
            (*pins_)[fmt::lower_uuid(fmt::get_str(p, "account_id"))] = pin;
        }
        for (const auto& h : fmt::get_arr(d, "access_heads").GetArray())
            heads_[fmt::lower_uuid(fmt::get_str(h, "pouch_id"))] = {fmt::get_int(h, "seq"),
                                                                    fmt::get_str(h, "hash")};
    } catch (const std::exception& e) {
        throw CliError(kExitFailure, std::string("identities.json is damaged: ") + e.what());
    }
    return *pins_;
}

void Identities::save_pins() {
    json::Out o;
    o.kv("v", 1).key("pins").arr();
    for (const auto& [id, p] : pins())
        o.obj()
            .kv("account_id", id)
            .kv("genesis_hash", p.genesis_hash)
            .key("sign_pub")
            .raw(p.sign_pub.json())
            .key("enc_pub")
            .raw(p.enc_pub.json())
            .kv("verified", p.verified)
            .end_obj();
    o.end_arr().key("access_heads").arr();
    for (const auto& [pouch, head] : heads_)
        o.obj().kv("pouch_id", pouch).kv("seq", head.first).kv("hash", head.second).end_obj();
    o.end_arr();
    cfg_.ensure_dir();
    write_file_atomic(cfg_.path("identities.json"), o.done(), 0600);
}

std::optional<Pin> Identities::pin_of(const std::string& account_id) {
    auto it = pins().find(fmt::lower_uuid(account_id));
    if (it == pins().end()) return std::nullopt;
    return it->second;
}

PinState Identities::check_listed(const fmt::PublicIdentity& id) {
    std::string acc = fmt::lower_uuid(id.account_id);
    auto it = pins().find(acc);
    if (it == pins().end()) {
        pins()[acc] = Pin{"", id.sign_pub, id.enc_pub, false};
        save_pins();
        return PinState::first_use;
    }
    return it->second.sign_pub == id.sign_pub && it->second.enc_pub == id.enc_pub
               ? PinState::same
               : PinState::changed;
}

Identities::Checked Identities::check(const std::string& account_id,
                                      const fmt::SignedStatement& identity,
                                      const fmt::SignedStatement& genesis, bool accept_new) {
    fmt::IdentityBody body;
    std::string acc = fmt::lower_uuid(account_id);
    try {
        body = fmt::verify_identity(identity, genesis);
        if (body.account_id != acc) throw fmt::FormatError("it names another account");
    } catch (const fmt::FormatError& e) {
        throw CliError(kExitIntegrity,
                       "the identity of account " + acc + " does not verify: " + e.what());
    }
    Checked c{{acc, body.sign_pub, body.enc_pub}, body.genesis_hash, PinState::first_use, false};
    auto it = pins().find(acc);
    if (it != pins().end()) {
        const Pin& p = it->second;
        bool same = p.sign_pub == body.sign_pub && p.enc_pub == body.enc_pub &&
                    (p.genesis_hash.empty() || p.genesis_hash == body.genesis_hash);
        if (same) {
            c.state = PinState::same;
            c.verified = p.verified;
            if (p.genesis_hash.empty()) {
                it->second.genesis_hash = body.genesis_hash;
                save_pins();
            }
            return c;
        }
        if (!accept_new) throw CliError(kExitIntegrity, changed_message(acc));
        c.state = PinState::changed;
    }
    pins()[acc] = Pin{body.genesis_hash, body.sign_pub, body.enc_pub, false};
    save_pins();
    return c;
}

void Identities::mark_verified(const std::string& account_id) {
    auto it = pins().find(fmt::lower_uuid(account_id));
    if (it == pins().end()) return;
    it->second.verified = true;
    save_pins();
}

void Identities::reload_access(const std::string& pouch_id) {
    lists_.erase(fmt::lower_uuid(pouch_id));
}

const std::optional<fmt::AccessList>& Identities::access_list(const std::string& pouch_id) {
    std::string pid = fmt::lower_uuid(pouch_id);
    auto cached = lists_.find(pid);
    if (cached != lists_.end()) return cached->second;
    pins();  // loads the pinned heads too
    std::vector<fmt::SignedStatement> items;
    api_.list("/v1/pouches/" + pid + "/access", "", [&](const rapidjson::Value& it) {
        if (jint(it, "index") != static_cast<long long>(items.size()))
            throw CliError(kExitIntegrity, "the access list's pages are out of order");
        items.push_back({jstr(it, "statement"), jstr(it, "signature")});
    });
    auto pinned = heads_.find(pid);
    if (items.empty()) {
        if (pinned != heads_.end())
            throw CliError(kExitIntegrity, "the server now says pouch " + pid +
                                               " has no access list, after this device verified "
                                               "one: nothing was trusted or changed");
        return lists_[pid] = std::nullopt;
    }
    fmt::AccessList list;
    try {
        list = fmt::verify_access_list(pid, std::move(items));
        if (pinned != heads_.end()) {
            auto [seq, hash] = pinned->second;
            if (seq > list.head_seq || list.hash_at(seq) != hash)
                throw fmt::FormatError("statement " + std::to_string(seq) +
                                       " is not the one this device verified before");
        }
    } catch (const fmt::FormatError& e) {
        throw CliError(kExitIntegrity, "the access list of pouch " + pid + " does not verify: " +
                                           e.what() + ". Nothing was trusted or changed.");
    }
    for (const auto& [acc, entry] : list.accounts)
        if (check_listed({acc, entry.sign_pub, entry.enc_pub}) == PinState::changed)
            throw CliError(kExitIntegrity, changed_message(acc));
    heads_[pid] = {list.head_seq, list.head_hash};
    save_pins();
    return lists_[pid] = std::move(list);
}

int Identities::fill_from_grants(const std::string& pouch_id,
                                 const crypto::P256PrivateKey& member_sign) {
    std::string pid = fmt::lower_uuid(pouch_id);
    const auto& list = access_list(pid);
    if (!list) return 0;
    const fmt::PublicIdentity& me = mine();
    const fmt::IdentityKeys& keys = my_keys();
    std::vector<fmt::KeyGrant> grants;
    api_.list("/v1/pouches/" + pid + "/key-grants", "", [&](const rapidjson::Value& v) {
        try {
            grants.push_back(fmt::KeyGrant::from_json(v));
        } catch (const fmt::FormatError& e) {
            std::fprintf(stderr, "pouch: a key grant of pouch %s is malformed: %s\n", pid.c_str(),
                         defang(e.what()).c_str());
        }
    });
    int sealed = 0;
    for (const auto& g : grants) {
        std::string why = fmt::grant_refusal(g, *list, pid, me.account_id);
        std::string key;
        if (why.empty()) {
            try {
                key = fmt::open_key_grant(g, keys.enc);
            } catch (const fmt::FormatError& e) {
                why = e.what();
            }
        }
        if (!why.empty()) {
            std::fprintf(stderr, "pouch: refused the key grant of pouch %s generation %lld: %s\n",
                         pid.c_str(), g.key_gen, defang(why).c_str());
            continue;
        }
        for (const fmt::Member* m : trust_.roster().active_members()) {
            fmt::KeyEnvelope e =
                fmt::seal_key_envelope(pid, m->id, g.key_gen, m->enc_pub, key,
                                       fmt::lower_uuid(device_.member_id), member_sign);
            std::string body = "{\"key_envelopes\":[" + e.json() + "]}";
            ApiAnswer r =
                api_.call("POST", "/v1/pouches/" + pid + "/key-envelopes", body,
                          {"Service-Signature: " + fmt::make_service_signature(member_sign, body)});
            if (r.ok())
                ++sealed;
            else if (r.code != "key_gen_conflict")  // that member has its envelope already
                throw CliError(kExitFailure, "sealing the key of pouch " + pid + " generation " +
                                                 std::to_string(g.key_gen) + ": " + describe(r));
        }
    }
    return sealed;
}

std::string safety_number_rows(const fmt::PublicIdentity& a, const fmt::PublicIdentity& b) {
    std::string sn = fmt::safety_number(a, b);  // 12 groups separated by single spaces
    std::string out = "  ";
    int group = 0;
    for (char c : sn) {
        if (c != ' ') {
            out += c;
            continue;
        }
        ++group;
        out += group % 4 == 0 ? "\n  " : "  ";
    }
    return out + "\n";
}

}  // namespace pouch::cli
