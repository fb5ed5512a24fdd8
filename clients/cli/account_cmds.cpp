// account_cmds.cpp -- `pouch status`, `pouch devices`, `pouch rename` and `pouch logout`
// (with its signed roster removal and the key rotation to every remaining member).
#include <cstdio>
#include <map>

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "clients/cli/errors.h"
#include "clients/cli/folder_state.h"
#include "clients/cli/session.h"
#include "common/clientfmt/key_envelope.h"
#include "common/clientfmt/roster.h"
#include "common/clientfmt/rotation.h"
#include "common/json/out.h"

namespace pouch::cli {

namespace fmt = pouch::clientfmt;

namespace {

void print_json(const std::string& s) {
    std::printf("%s\n", s.c_str());
}

std::string cell(const std::string& s, size_t w) {
    return s.size() >= w ? s.substr(0, w) : s + std::string(w - s.size(), ' ');
}

}  // namespace

int cmd_status(const Args& a) {
    Config cfg = config_from(a);
    bool json = a.flag("json");
    auto pending = cfg.load_pending_login();
    if (!cfg.logged_in()) {
        if (json) {
            json::Out o;
            o.kv("logged_in", false);
            if (pending) {
                o.key("pending_login")
                    .obj()
                    .kv("server", pending->server)
                    .kv("request_id", pending->request_id);
                o.kv("authorize_url", pending->authorize_url)
                    .kv("confirm_code", pending->confirm_code);
                o.kv("expires_at", pending->expires_at).end_obj();
            }
            print_json(o.done());
        } else if (pending) {
            std::printf("not logged in; a login is waiting for approval at %s (confirm code %s)\n",
                        pending->authorize_url.c_str(), pending->confirm_code.c_str());
        } else {
            std::printf("not logged in (run `pouch login`)\n");
        }
        return kExitNeedLogin;
    }
    Session s(a);
    std::string session_state = "active";
    int code = kExitOk;
    long long stored = -1, limit = -1;
    try {
        ApiAnswer acc = s.api.must("GET", "/v1/account");
        stored = jint(acc.data()["usage"], "stored_bytes");
        limit = jint(acc.data()["plan"], "storage_bytes");
    } catch (const CliError& e) {
        if (e.code != kExitNeedLogin && e.code != kExitUnreachable) throw;
        session_state = e.code == kExitNeedLogin ? "ended" : "unreachable";
        code = e.code;
    }
    Keyring keys = s.cfg.load_keys();
    auto folders = all_folder_states(s.cfg);
    if (json) {
        json::Out o;
        o.kv("logged_in", true).kv("session", session_state).kv("server", s.device.server);
        o.kv("account_id", s.device.account_id).kv("device_id", s.device.device_id);
        o.kv("device_name", s.device.device_name).kv("member_id", s.device.member_id);
        if (stored >= 0) o.kv("stored_bytes", stored).kv("storage_bytes", limit);
        o.key("pouches").arr();
        for (const auto& [p, gens] : keys) {
            o.obj().kv("id", p).key("key_gens").arr();
            for (const auto& [g, k] : gens) o.num(g);
            o.end_arr().end_obj();
        }
        o.end_arr().key("folders").arr();
        for (const auto& f : folders) {
            o.obj().kv("path", f.root).kv("pouch_id", f.pouch_id).kv("epoch", f.epoch);
            o.kv("seq", f.seq).kv("files", static_cast<long long>(f.files.size()));
            o.kv("pending_ops", static_cast<long long>(f.pending_ops()));
            o.end_obj();
        }
        o.end_arr();
        print_json(o.done());
        return code;
    }
    std::printf("server:   %s\naccount:  %s\ndevice:   %s (%s)\nmember:   %s\nsession:  %s\n",
                s.device.server.c_str(), s.device.account_id.c_str(), s.device.device_name.c_str(),
                s.device.device_id.c_str(), s.device.member_id.c_str(), session_state.c_str());
    if (stored >= 0)
        std::printf("storage:  %s of %s\n", human_bytes(stored).c_str(),
                    human_bytes(limit).c_str());
    for (const auto& [p, gens] : keys)
        std::printf("pouch:    %s (key generation %lld)\n", p.c_str(),
                    gens.empty() ? 0 : gens.rbegin()->first);
    for (const auto& f : folders)
        std::printf("folder:   %s -> pouch %s, event %lld, %zu files%s\n", f.root.c_str(),
                    f.pouch_id.substr(0, 8).c_str(), f.seq, f.files.size(),
                    f.pending.empty() ? "" : ", a commit waits to be resent");
    return code;
}

int cmd_devices(const Args& a) {
    Session s(a);
    rapidjson::Document all(rapidjson::kArrayType);
    s.api.list("/v1/devices", "", [&](const rapidjson::Value& d) {
        all.PushBack(rapidjson::Value(d, all.GetAllocator()), all.GetAllocator());
    });
    if (a.flag("json")) {
        json::Out o;
        o.kv("this_device", s.device.device_id).key("items").arr();
        for (const auto& d : all.GetArray()) {
            rapidjson::StringBuffer buf;
            rapidjson::Writer<rapidjson::StringBuffer> w(buf);
            d.Accept(w);
            o.raw(std::string(buf.GetString(), buf.GetSize()));
        }
        o.end_arr();
        print_json(o.done());
        return kExitOk;
    }
    std::printf("  %s %s %s %s\n", cell("NAME", 24).c_str(), cell("ID", 36).c_str(),
                cell("LAST SEEN", 24).c_str(), "STATE");
    for (const auto& d : all.GetArray()) {
        std::string id = jstr(d, "id");
        bool revoked = jopt(d, "revoked_at").has_value();
        std::printf("%s %s %s %s %s\n", id == s.device.device_id ? "*" : " ",
                    cell(jstr(d, "name"), 24).c_str(), cell(id, 36).c_str(),
                    cell(jopt(d, "last_seen_at").value_or("-"), 24).c_str(),
                    revoked ? "revoked" : "active");
    }
    return kExitOk;
}

int cmd_rename(const Args& a) {
    if (a.positional.size() != 1) throw CliError(kExitUsage, "usage: pouch rename NAME");
    Session s(a);
    json::Out o;
    o.kv("name", a.positional[0]);
    ApiAnswer r = s.api.call("PATCH", "/v1/devices/" + s.device.device_id, o.done());
    if (r.status == 400) throw CliError(kExitUsage, "the server refused the name: " + describe(r));
    if (!r.ok()) throw CliError(kExitFailure, "rename: " + describe(r));
    s.device.device_name = jstr(r.data(), "name");
    s.cfg.save_device(s.device);
    std::printf("this device is now \"%s\"\n", s.device.device_name.c_str());
    return kExitOk;
}

int cmd_logout(const Args& a) {
    Config cfg = config_from(a);
    if (a.flag("local")) {
        cfg.forget_everything();
        std::printf(
            "forgot this device's keys, tokens and folder bindings (the server was not asked)\n");
        return kExitOk;
    }
    Session s(a);
    const fmt::Roster& roster = s.trust.roster();
    const fmt::Member* me = roster.find_active(s.device.member_id);
    if (!me) throw CliError(kExitIntegrity, "this device's member is not active in the roster");

    // The removal, signed by this member itself (docs/CLIENT-FORMAT.md "Rotation").
    fmt::SignedStatement st =
        fmt::removal_statement(roster, *me, s.device.member_id, s.device.device_id, s.sign);

    // A new key, one generation up, for every pouch this device could read, sealed to every
    // member that stays: what this device's keys open ends with what was written before.
    s.trust.fetch_keys();
    Keyring held = s.cfg.load_keys();
    std::map<std::string, std::vector<fmt::KeyEnvelope>> by_pouch;
    size_t total = 0;
    s.api.list("/v1/pouches", "", [&](const rapidjson::Value& p) {
        std::string id = jstr(p, "id");
        if (!held.count(id)) return;
        by_pouch[id] = fmt::rotation_envelopes(id, jint(p, "key_gen") + 1, roster,
                                               s.device.member_id, s.device.member_id, s.sign);
        total += by_pouch[id].size();
    });
    int pouches = static_cast<int>(by_pouch.size());
    if (total > 2000)
        throw CliError(kExitFailure,
                       "the rotation needs " + std::to_string(total) +
                           " key envelopes, more than one revoke carries (2000); revoke "
                           "this device from the web app instead");
    std::vector<fmt::KeyEnvelope> all;
    for (const auto& [id, envs] : by_pouch) all.insert(all.end(), envs.begin(), envs.end());
    ApiAnswer r = s.api.call("POST", "/v1/devices/" + s.device.device_id + "/revoke",
                             fmt::revoke_body(st, all, "pouch logout"));
    if (r.status == 409 && r.code == "key_gen_conflict") {
        // A server that wants one key_gen per request across pouches refused the whole revoke
        // (and stored nothing): rotate each pouch on its own while this device may still
        // call, then revoke with the removal alone.
        for (const auto& [id, envs] : by_pouch)
            s.api.must("POST", "/v1/pouches/" + id + "/key-envelopes",
                       fmt::key_envelopes_body(envs));
        r = s.api.call("POST", "/v1/devices/" + s.device.device_id + "/revoke",
                       fmt::revoke_body(st, {}, "pouch logout"));
    }
    if (!r.ok()) throw CliError(kExitFailure, "revoke: " + describe(r));
    bool pending = r.data().HasMember("rotation_pending") && r.data()["rotation_pending"].IsTrue();
    s.cfg.forget_everything();
    std::printf(
        "this device is revoked and forgotten; %d pouch key%s rotated for %zu remaining "
        "member%s%s\n",
        pouches, pouches == 1 ? "" : "s", roster.active_members().size() - 1,
        roster.active_members().size() == 2 ? "" : "s",
        pending ? " (the server reports a rotation still pending)" : "");
    return kExitOk;
}

}  // namespace pouch::cli
