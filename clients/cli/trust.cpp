// trust.cpp -- roster verification with pinning and pouch keys from key envelopes
// (trust.h), on common/clientfmt (roster, key_envelope) and the Api's paged lists.
#include "clients/cli/trust.h"

#include "clients/cli/errors.h"
#include "common/clientfmt/key_envelope.h"

namespace pouch::cli {

namespace fmt = pouch::clientfmt;

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

const fmt::Member& Trust::signer(const std::string& member_id) {
    const fmt::Member* m = roster().find(member_id);
    if (!m) {
        reload();  // it may have joined after this process verified the roster
        m = roster().find(member_id);
    }
    if (!m)
        throw CliError(kExitIntegrity,
                       "signed by " + member_id + ", who is not in the verified roster");
    return *m;
}

std::string Trust::my_label() {
    const fmt::Member* me = roster().find(device_.member_id);
    return me && !me->label.empty() ? me->label : device_.device_name;
}

bool Trust::has_key(const std::string& pouch_id, long long key_gen) {
    if (!keys_) keys_ = cfg_.load_keys();
    auto it = keys_->find(pouch_id);
    return it != keys_->end() && it->second.count(key_gen);
}

std::string Trust::pouch_key(const std::string& pouch_id, long long key_gen) {
    if (!has_key(pouch_id, key_gen) && looked_for_[pouch_id].insert(key_gen).second)
        fetch_keys(pouch_id);
    if (!has_key(pouch_id, key_gen))
        throw MissingKey(kExitFailure, "this device holds no key for pouch " + pouch_id +
                                           " generation " + std::to_string(key_gen) +
                                           " (no envelope for it was sealed to this device)");
    return (*keys_)[pouch_id][key_gen];
}

int Trust::fetch_keys(const std::string& pouch_id) {
    if (!keys_) keys_ = cfg_.load_keys();
    std::vector<std::string> pouches;
    if (!pouch_id.empty()) {
        pouches.push_back(pouch_id);
    } else {
        api_.list("/v1/pouches", "",
                  [&](const rapidjson::Value& p) { pouches.push_back(jstr(p, "id")); });
    }
    crypto::P256PrivateKey enc = cfg_.enc_key();
    int added = 0;
    for (const auto& p : pouches) {
        std::vector<fmt::KeyEnvelope> envs;
        api_.list("/v1/pouches/" + p + "/key-envelopes", "member_id=" + device_.member_id + "&",
                  [&](const rapidjson::Value& v) {
                      try {
                          envs.push_back(fmt::KeyEnvelope::from_json(v));
                      } catch (const fmt::FormatError& e) {
                          throw CliError(kExitIntegrity,
                                         std::string("a key envelope is malformed: ") + e.what());
                      }
                  });
        for (const auto& e : envs) {
            if (e.member_id != device_.member_id || e.pouch_id != p) continue;
            if ((*keys_)[p].count(e.key_gen)) continue;
            const fmt::Member& creator = signer(e.created_by_member);
            try {
                (*keys_)[p][e.key_gen] = fmt::open_key_envelope(e, creator.sign_pub, enc);
                ++added;
            } catch (const fmt::FormatError& err) {
                throw CliError(kExitIntegrity, err.what());
            }
        }
    }
    if (added) cfg_.save_keys(*keys_);
    return added;
}

}  // namespace pouch::cli
