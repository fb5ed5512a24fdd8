// account_cmds.cpp -- `pouch status`, `pouch devices`, `pouch rename` and `pouch logout`
// (with its signed roster removal; the key rotation it owes is the web app's).
#include <algorithm>
#include <cstdio>
#include <vector>

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "clients/cli/errors.h"
#include "clients/cli/folder_state.h"
#include "clients/cli/session.h"
#include "clients/cli/terminal_text.h"
#include "common/clientfmt/roster.h"
#include "common/clientfmt/rotation.h"
#include "common/json/out.h"

namespace pouch::cli {

namespace fmt = pouch::clientfmt;

namespace {

void print_json(const std::string& s) {
    std::printf("%s\n", ascii_json(s).c_str());
}

// A column of w characters: the text defanged (it is the server's), cut or padded.
std::string cell(const std::string& s, size_t w) {
    std::string t = first_chars(defang(s), w);
    return t + std::string(w - char_count(t), ' ');
}

}  // namespace

namespace {

// `pouch status` before the login is redeemed: the login waiting for the browser, if any.
int status_logged_out(const Config& cfg, bool json) {
    auto pending = cfg.load_pending_login();
    if (json) {
        json::Out o;
        o.kv("logged_in", false);
        if (pending) {
            o.key("pending_login").obj().kv("server", pending->server);
            o.kv("request_id", pending->request_id).kv("approval_link", pending->approval_link);
            o.kv("confirm_code", pending->confirm_code).kv("fingerprint", pending->fingerprint);
            o.kv("device_name", pending->device_name).kv("expires_at", pending->expires_at);
            o.end_obj();
        }
        print_json(o.done());
    } else if (pending) {
        std::printf(
            "not logged in; the login of \"%s\" is waiting for approval: open\n  %s\nthen "
            "type this code on the page: %s\nThe page must show this device key "
            "fingerprint: %s\n",
            defang(pending->device_name).c_str(), defang(pending->approval_link).c_str(),
            defang(pending->confirm_code).c_str(), defang(pending->fingerprint).c_str());
    } else {
        std::printf("not logged in (run `pouch login`)\n");
    }
    return kExitNeedLogin;
}

// What `pouch status` shows of a logged-in device.
struct StatusView {
    std::string session = "active";  // active | ended | unreachable
    long long stored = -1, limit = -1;
    Keyring keys;
    std::vector<FolderState> folders;
};

void print_status_json(const Session& s, const StatusView& v) {
    json::Out o;
    o.kv("logged_in", true).kv("session", v.session).kv("server", s.device.server);
    if (s.device.insecure_http) o.kv("insecure_http", true);
    if (!s.device.ca_file.empty()) o.kv("ca_file", s.device.ca_file);
    o.kv("account_id", s.device.account_id).kv("device_id", s.device.device_id);
    o.kv("device_name", s.device.device_name).kv("member_id", s.device.member_id);
    if (v.stored >= 0) o.kv("stored_bytes", v.stored).kv("storage_bytes", v.limit);
    o.key("pouches").arr();
    for (const auto& [p, held] : v.keys) {
        o.obj().kv("id", p).key("key_gens").arr();
        for (const auto& [g, k] : held.gens) o.num(g);
        o.end_arr().kv("high", held.high).end_obj();
    }
    o.end_arr().key("folders").arr();
    for (const auto& f : v.folders) {
        o.obj().kv("path", f.root).kv("pouch_id", f.pouch_id).kv("epoch", f.epoch);
        o.kv("seq", f.seq).kv("files", static_cast<long long>(f.files.size()));
        o.kv("pending_ops", static_cast<long long>(f.pending_ops()));
        o.end_obj();
    }
    o.end_arr();
    print_json(o.done());
}

void print_status_text(const Session& s, const StatusView& v) {
    std::printf("server:   %s%s\naccount:  %s\ndevice:   %s (%s)\nmember:   %s\nsession:  %s\n",
                defang(s.device.server).c_str(),
                s.device.insecure_http ? " (plain HTTP, --insecure-http)" : "",
                defang(s.device.account_id).c_str(), defang(s.device.device_name).c_str(),
                defang(s.device.device_id).c_str(), defang(s.device.member_id).c_str(),
                v.session.c_str());
    if (!s.device.ca_file.empty())
        std::printf("ca file:  %s (pinned at login)\n", defang(s.device.ca_file).c_str());
    if (v.stored >= 0)
        std::printf("storage:  %s of %s\n", human_bytes(v.stored).c_str(),
                    human_bytes(v.limit).c_str());
    for (const auto& [p, held] : v.keys)
        std::printf("pouch:    %s (key generation %lld)\n", defang(p).c_str(), held.high);
    for (const auto& f : v.folders)
        std::printf("folder:   %s -> pouch %s, event %lld, %zu files%s\n", defang(f.root).c_str(),
                    defang(first_chars(f.pouch_id, 8)).c_str(), f.seq, f.files.size(),
                    f.pending.empty() ? "" : ", a commit waits to be resent");
}

}  // namespace

int cmd_status(const Args& a) {
    Config cfg = config_from(a);
    if (!cfg.logged_in()) return status_logged_out(cfg, a.flag("json"));
    Session s(a);
    StatusView v;
    int code = kExitOk;
    try {
        ApiAnswer acc = s.api.must("GET", "/v1/account");
        v.stored = jint(jobj(acc.data(), "usage"), "stored_bytes");
        v.limit = jint(jobj(acc.data(), "plan"), "storage_bytes");
    } catch (const CliError& e) {
        if (e.code != kExitNeedLogin && e.code != kExitUnreachable) throw;
        v.session = e.code == kExitNeedLogin ? "ended" : "unreachable";
        code = e.code;
    }
    v.keys = s.cfg.load_keys();
    v.folders = all_folder_states(s.cfg);
    if (a.flag("json"))
        print_status_json(s, v);
    else
        print_status_text(s, v);
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
    std::string name = checked_device_name(a.positional[0], "NAME");
    Session s(a);
    json::Out o;
    o.kv("name", name);
    ApiAnswer r = s.api.call("PATCH", "/v1/devices/" + s.device.device_id, o.done());
    if (r.status == 400) throw CliError(kExitUsage, "the server refused the name: " + describe(r));
    if (!r.ok()) throw CliError(kExitFailure, "rename: " + describe(r));
    s.device.device_name = jstr(r.data(), "name");
    s.cfg.save_device(s.device);
    std::printf("this device is now \"%s\"\n", defang(s.device.device_name).c_str());
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

    // The removal, signed by this member itself (docs/CLIENT-FORMAT.md "Rotation"), with
    // rotated_to one above the highest generation this device holds, once the envelopes sealed
    // to it since are fetched. Not the server's word on the current generation: readers accept
    // this member's envelopes and revisions below rotated_to, so a server that named a higher
    // one here would widen what these keys may still sign after they left. It sends no new
    // keys: a key this member made would be known to it after it left, and readers refuse
    // envelopes from a removed member at rotated_to and above. The rotation is owed
    // (rotation_pending) and done by the web app.
    s.trust.fetch_keys();
    std::vector<long long> gens;
    for (const auto& [pouch, held] : s.cfg.load_keys()) gens.push_back(held.high);
    long long rotated_to = fmt::rotated_to_of(gens);
    fmt::SignedStatement st = fmt::removal_statement(roster, *me, s.device.member_id,
                                                     s.device.device_id, rotated_to, s.sign);
    ApiAnswer r = s.api.call("POST", "/v1/devices/" + s.device.device_id + "/revoke",
                             fmt::revoke_body(st, {}, "pouch logout"));
    if (!r.ok()) throw CliError(kExitFailure, "revoke: " + describe(r));
    const auto& d = r.data();
    bool pending =
        d.IsObject() && d.HasMember("rotation_pending") && d["rotation_pending"].IsTrue();
    s.cfg.forget_everything();
    std::printf("this device is revoked and forgotten (its removal fixes key generation %lld)\n",
                rotated_to);
    if (pending)
        std::printf(
            "the keys it held still open the pouches until they are rotated: open the web "
            "app's Devices page and choose \"Rotate keys now\"\n");
    return kExitOk;
}

}  // namespace pouch::cli
