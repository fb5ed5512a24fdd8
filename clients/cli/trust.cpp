// trust.cpp -- roster verification with pinning, pouch keys from fully checked key envelopes,
// revision signers, and the write generation with its rollback and removed-creator refusals
// (trust.h), on common/clientfmt (roster, key_envelope) and the Api's paged lists.
#include "clients/cli/trust.h"

#include <algorithm>

#include "common/clientfmt/key_envelope.h"

namespace pouch::cli {

namespace fmt = pouch::clientfmt;

namespace {

std::string gen_text(long long g) {
    return std::to_string(g);
}

// "removed from the roster (rotated_to 5)" or "not in the verified roster", for messages.
std::string untrusted_why(const fmt::Member* m, const std::string& id) {
    if (!m) return id + " is not in the verified roster";
    return id + " was removed from the roster with rotated_to " +
           gen_text(m->rotated_to.value_or(0)) +
           " (anything it made at or above that generation is refused)";
}

}  // namespace

Trust::Trust(Api& api, const Config& cfg, DeviceState& device)
    : api_(api), cfg_(cfg), device_(device) {}

void Trust::reload() {
    roster_.reset();
}

const fmt::Roster& Trust::roster() {
    if (roster_) return *roster_;
    std::vector<fmt::SignedStatement> items;
    api_.list_roster([&](const rapidjson::Value& it) {
        if (jint(it, "index") != static_cast<long long>(items.size()))
            throw CliError(kExitIntegrity, "the roster's pages are out of order");
        items.push_back({jstr(it, "statement"), jstr(it, "signature")});
    });
    try {
        fmt::Roster r = fmt::verify_roster(std::move(items));
        if (!device_.genesis_hash.empty() && r.genesis_hash != device_.genesis_hash)
            throw fmt::FormatError("the roster's genesis is not the one this device joined");
        if (device_.pin_seq >= 0) fmt::check_pin(r, device_.pin_seq, device_.pin_hash);
        roster_ = std::move(r);
    } catch (const fmt::FormatError& e) {
        throw CliError(kExitIntegrity, std::string("the account's roster does not verify: ") +
                                           e.what() + ". Nothing was trusted or changed.");
    }
    const fmt::Member* me = roster_->find(device_.member_id);
    if (!me) throw CliError(kExitIntegrity, "this device's member is not in the verified roster");
    if (!me->active())
        throw CliError(kExitNeedLogin,
                       "this device was removed from the account's roster; run "
                       "`pouch logout --local` and then `pouch login`");
    if (roster_->head_seq != device_.pin_seq) {
        device_.pin_seq = roster_->head_seq;
        device_.pin_hash = roster_->head_hash;
        cfg_.save_device(device_);
    }
    return *roster_;
}

std::string Trust::label_of(const std::string& member_id) {
    const fmt::Member* m = roster().find(member_id);
    return m ? m->label : "";
}

const fmt::Member& Trust::revision_signer(const std::string& pouch_id, const std::string& member_id,
                                          long long key_gen) {
    const fmt::Member* m = roster().find(member_id);
    if (!m) {
        reload();
        m = roster().find(member_id);
    }
    bool shared = shared_ && shared_->is_shared(pouch_id);
    if (!m && shared_) {
        // Another account's member: the list (or the pouch's being shared at all) may be newer
        // than what this process verified; once more after reading it again.
        if (shared) {
            try {
                return shared_->other_signer(pouch_id, member_id, key_gen);
            } catch (const UntrustedItem&) {
            }
        }
        shared_->reload(pouch_id);
        if (shared_->is_shared(pouch_id))
            return shared_->other_signer(pouch_id, member_id, key_gen);
    }
    if (!m || !m->trusted_at(key_gen))
        throw UntrustedItem("signed at key generation " + gen_text(key_gen) + " by " +
                            untrusted_why(m, member_id));
    if (shared && !shared_->may_write_at(pouch_id, device_.account_id, key_gen)) {
        shared_->reload(pouch_id);  // a role raised since this process read the list
        shared = shared_->is_shared(pouch_id);
    }
    if (shared && !shared_->may_write_at(pouch_id, device_.account_id, key_gen))
        throw UntrustedItem("signed at key generation " + gen_text(key_gen) + " by " + member_id +
                            " of this account, whose role in the pouch's access list did not "
                            "allow writing at that generation");
    return *m;
}

void Trust::check_may_write(const std::string& pouch_id, long long key_gen) {
    auto refused = [&] {
        return shared_ && shared_->is_shared(pouch_id) &&
               !shared_->may_write_at(pouch_id, device_.account_id, key_gen);
    };
    if (refused()) shared_->reload(pouch_id);  // a role raised since this process read the list
    if (refused())
        throw WriteHeld("this account may only read pouch " + pouch_id +
                        " (its role in the pouch's access list is read): nothing was sent; "
                        "the local changes stay");
}

std::string Trust::my_label() {
    const fmt::Member* me = roster().find(device_.member_id);
    return me && !me->label.empty() ? me->label : device_.device_name;
}

Keyring& Trust::keys() {
    if (!keys_) keys_ = cfg_.load_keys();
    return *keys_;
}

// A key of keys.json whose creator is known (a key of version 1 has none until its envelope
// is checked again), or null.
const HeldKey* Trust::verified_key(const std::string& pouch_id, long long key_gen) {
    auto p = keys().find(pouch_id);
    if (p == keys().end()) return nullptr;
    auto g = p->second.gens.find(key_gen);
    if (g == p->second.gens.end() || g->second.creator.empty()) return nullptr;
    return &g->second;
}

bool Trust::has_key(const std::string& pouch_id, long long key_gen) {
    return verified_key(pouch_id, key_gen) != nullptr;
}

std::string Trust::refusal(const std::string& pouch_id, long long key_gen) const {
    auto p = refused_.find(pouch_id);
    if (p == refused_.end()) return "";
    auto g = p->second.find(key_gen);
    return g == p->second.end() ? "" : g->second;
}

std::string Trust::pouch_key(const std::string& pouch_id, long long key_gen) {
    if (!has_key(pouch_id, key_gen) && looked_for_[pouch_id].insert(key_gen).second) {
        // In a shared pouch another account may have rotated: its grant to this account is
        // sealed to this account's members first.
        if (fetch_keys(pouch_id) == 0 && !has_key(pouch_id, key_gen) && shared_ &&
            shared_->is_shared(pouch_id) && shared_->fill_keys(pouch_id) > 0)
            fetch_keys(pouch_id);
    }
    const HeldKey* held = verified_key(pouch_id, key_gen);
    if (!held) {
        std::string why = refusal(pouch_id, key_gen);
        if (!why.empty()) throw UntrustedItem(why);
        throw MissingKey("this device holds no key for pouch " + pouch_id + " generation " +
                         gen_text(key_gen) + " (no envelope for it was sealed to this device)");
    }
    // Checked at every use, against the roster as it is now: a removal seen after the key was
    // opened still counts.
    const fmt::Member* creator = roster().find(held->creator);
    if (!creator || !creator->trusted_at(key_gen))
        throw UntrustedItem("the key of pouch " + pouch_id + " generation " + gen_text(key_gen) +
                            " is not used: its creator " + untrusted_why(creator, held->creator));
    return held->key;
}

void Trust::check_rollback(const std::string& pouch_id, long long server_gen) {
    auto p = keys().find(pouch_id);
    long long high = p == keys().end() ? 0 : p->second.high;
    if (server_gen < high)
        throw CliError(kExitIntegrity,
                       "rollback: the service names key generation " + gen_text(server_gen) +
                           " as current for pouch " + pouch_id + ", below generation " +
                           gen_text(high) +
                           " which this device holds; nothing is written to this pouch");
}

std::string Trust::write_key(const std::string& pouch_id, long long server_gen) {
    auto check = [&] { check_rollback(pouch_id, server_gen); };
    check();
    // Fetching the key may raise the mark (envelopes of a higher generation were offered):
    // checked again after, whether the key was found or not.
    std::string key;
    try {
        key = pouch_key(pouch_id, server_gen);
    } catch (const ItemSkipped&) {
        check();
        throw;
    }
    check();
    const HeldKey* held = verified_key(pouch_id, server_gen);
    const fmt::Member* creator = roster().find(held->creator);
    if (!creator || !creator->active())
        throw WriteHeld("the current key of pouch " + pouch_id + " (generation " +
                        gen_text(server_gen) +
                        ") was made by a removed member; waiting for a key rotation. Nothing "
                        "was sent; the local changes stay and are sent once the keys are "
                        "rotated (the web app's Devices page, \"Rotate keys now\")");
    return key;
}

std::vector<fmt::KeyEnvelope> Trust::list_envelopes(const std::string& p) {
    std::vector<fmt::KeyEnvelope> envs;
    api_.list("/v1/pouches/" + p + "/key-envelopes", "member_id=" + device_.member_id + "&",
              [&](const rapidjson::Value& v) {
                  try {
                      envs.push_back(fmt::KeyEnvelope::from_json(v));
                  } catch (const fmt::FormatError& e) {
                      if (v.IsObject() && v.HasMember("key_gen") && v["key_gen"].IsInt64())
                          refused_[p][v["key_gen"].GetInt64()] =
                              std::string("a key envelope is malformed: ") + e.what();
                  }
              });
    return envs;
}

std::string Trust::envelope_refused(const fmt::KeyEnvelope& e, const std::string& p,
                                    bool& reloaded) {
    if (e.key_gen < 1) return "its generation is below 1";
    std::string why = fmt::envelope_refusal(e, roster(), p, device_.member_id);
    if (why == "unknown_creator" && !reloaded) {
        reloaded = true;  // it may have joined after this process verified the roster
        reload();
        why = fmt::envelope_refusal(e, roster(), p, device_.member_id);
    }
    if (why.empty()) return "";
    if (why == "wrong_pouch") return "it names pouch " + e.pouch_id;
    if (why == "wrong_member")
        return "it is sealed to member " + e.member_id + ", not to this device";
    return "its creator " + untrusted_why(roster().find(e.created_by_member), e.created_by_member);
}

std::string Trust::open_into_keys(const std::string& p, const fmt::KeyEnvelope& e,
                                  const crypto::P256PrivateKey& enc, int& added, bool& changed) {
    std::string key;
    try {
        key = fmt::open_key_envelope(e, roster().find(e.created_by_member)->sign_pub, enc);
    } catch (const fmt::FormatError& err) {
        return err.what();
    }
    PouchKeys& pk = keys()[p];
    auto old = pk.gens.find(e.key_gen);
    if (old != pk.gens.end()) {  // held since keys.json v1, without its creator
        if (old->second.key != key) return "it opens to a key other than the one this device held";
        old->second.creator = e.created_by_member;
        changed = true;
    } else {
        pk.gens[e.key_gen] = {key, e.created_by_member};
        ++added;
    }
    pk.high = std::max(pk.high, e.key_gen);
    refused_[p].erase(e.key_gen);
    return "";
}

bool Trust::drop_unverified(const std::string& p) {
    auto it = keys().find(p);
    if (it == keys().end()) return false;
    return std::erase_if(it->second.gens, [](const auto& g) { return g.second.creator.empty(); }) >
           0;
}

int Trust::fetch_keys(const std::string& pouch_id) {
    std::vector<std::string> pouches;
    if (!pouch_id.empty()) {
        pouches.push_back(pouch_id);
    } else {
        api_.list("/v1/pouches", "",
                  [&](const rapidjson::Value& p) { pouches.push_back(jstr(p, "id")); });
    }
    crypto::P256PrivateKey enc = cfg_.enc_key();
    int added = 0;
    bool changed = false, reloaded = false;
    for (const auto& p : pouches) {
        for (const auto& e : list_envelopes(p)) {
            if (e.key_gen >= 1 && verified_key(p, e.key_gen)) continue;
            std::string why = envelope_refused(e, p, reloaded);
            if (why.empty()) why = open_into_keys(p, e, enc, added, changed);
            if (!why.empty())
                refused_[p][e.key_gen] = "the key envelope of pouch " + p + " generation " +
                                         gen_text(e.key_gen) + " was refused: " + why;
        }
        if (drop_unverified(p)) changed = true;
    }
    if (added || changed) cfg_.save_keys(keys());
    return added;
}

}  // namespace pouch::cli
