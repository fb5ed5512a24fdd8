// sharing_cmds.cpp -- `pouch shared`, `pouch invitations` (list, accept, decline), `pouch
// members POUCH` and `pouch verify ACCOUNT|EMAIL` (docs/SHARING.md §10). Everything another
// account signed is checked before it is shown as trusted or used: the inviter's identity
// against its genesis and the pin, the pouch's access list in full, each grant before its key
// is sealed again to this account's members.
#include <cstdio>
#include <vector>

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "clients/cli/errors.h"
#include "clients/cli/http.h"
#include "clients/cli/identity.h"
#include "clients/cli/session.h"
#include "clients/cli/terminal_text.h"
#include "common/clientfmt/key_envelope.h"
#include "common/clientfmt/proofs.h"
#include "common/json/out.h"

namespace pouch::cli {

namespace fmt = pouch::clientfmt;

namespace {

void print_json(const std::string& s) {
    std::printf("%s\n", ascii_json(s).c_str());
}

std::string raw_json(const rapidjson::Value& v) {
    rapidjson::StringBuffer buf;
    rapidjson::Writer<rapidjson::StringBuffer> w(buf);
    v.Accept(w);
    return std::string(buf.GetString(), buf.GetSize());
}

// A column of w characters: the text defanged (it is the server's), cut or padded.
std::string cell(const std::string& s, size_t w) {
    std::string t = first_chars(defang(s), w);
    return t + std::string(w - char_count(t), ' ');
}

std::vector<rapidjson::Document> all_items(Api& api, const std::string& path,
                                           const std::string& query = "") {
    std::vector<rapidjson::Document> out;
    api.list(path, query, [&](const rapidjson::Value& v) {
        rapidjson::Document d;
        d.CopyFrom(v, d.GetAllocator());
        out.push_back(std::move(d));
    });
    return out;
}

std::string checked_uuid(const std::string& s, const char* what) {
    if (!fmt::is_uuid(s)) throw CliError(kExitUsage, std::string(what) + " must be a UUID");
    return fmt::lower_uuid(s);
}

const char* pin_word(PinState s, bool verified) {
    if (s == PinState::changed) return "CHANGED";
    if (verified) return "verified";
    return s == PinState::first_use ? "new (not compared yet)" : "pinned (not compared yet)";
}

struct Sharing {
    Session s;
    Identities& ids;
    explicit Sharing(const Args& a) : s(a), ids(s.ids) {}

    std::string me() { return fmt::lower_uuid(s.device.account_id); }

    // The invitation `id` among those this account received.
    rapidjson::Document received(const std::string& id) {
        for (auto& inv : all_items(s.api, "/v1/invitations", "direction=received&"))
            if (fmt::lower_uuid(jstr(inv, "id")) == id) return std::move(inv);
        throw CliError(kExitFailure, "no invitation " + id + " was sent to this account");
    }

    // The inviter's identity, verified and compared with its pin (a change stops here).
    Identities::Checked inviter(const rapidjson::Value& inv) {
        const auto& idv = jobj(inv, "inviter_identity");
        return ids.check(
            jstr(inv, "inviter_account_id"), {jstr(idv, "statement"), jstr(idv, "signature")},
            {jstr(jobj(idv, "genesis"), "statement"), jstr(jobj(idv, "genesis"), "signature")});
    }

    // The access list of the invitation's pouch, which must name this account (with this
    // account's identity and the invitation's role) shared by the inviter, an admin.
    const fmt::AccessList& list_for(const rapidjson::Value& inv, const Identities::Checked& by) {
        std::string pouch = fmt::lower_uuid(jstr(inv, "pouch_id"));
        const auto& list = ids.access_list(pouch);
        auto refuse = [&](const std::string& why) {
            throw CliError(kExitIntegrity, "the invitation to pouch " + pouch +
                                               " does not match its access list: " + why +
                                               ". Nothing was accepted.");
        };
        if (!list) refuse("the pouch has no access list");
        const fmt::AccessEntry* mine = list->find(me());
        if (!mine || !mine->in_list) refuse("the list does not name this account");
        const fmt::PublicIdentity& my_id = ids.mine();
        if (!(mine->sign_pub == my_id.sign_pub) || !(mine->enc_pub == my_id.enc_pub))
            refuse("the list names another identity for this account");
        if (mine->role != jstr(inv, "role")) refuse("the list gives another role");
        const fmt::AccessEntry* inviter = list->find(by.identity.account_id);
        if (!inviter || !(inviter->sign_pub == by.identity.sign_pub))
            refuse("the inviter's identity in the list is not the one it signed with");
        return *list;
    }
};

int list_invitations(Sharing& sh, bool json) {
    auto received = all_items(sh.s.api, "/v1/invitations", "direction=received&");
    auto sent = all_items(sh.s.api, "/v1/invitations", "direction=sent&");
    if (json) {
        json::Out o;
        o.key("received").arr();
        for (const auto& i : received) o.raw(raw_json(i));
        o.end_arr().key("sent").arr();
        for (const auto& i : sent) o.raw(raw_json(i));
        o.end_arr();
        print_json(o.done());
        return kExitOk;
    }
    auto row = [](const rapidjson::Value& i, const std::string& who) {
        std::printf("  %s %s %s %s %s\n", cell(jstr(i, "id"), 36).c_str(), cell(who, 28).c_str(),
                    cell(jstr(i, "role"), 5).c_str(), cell(jstr(i, "state"), 9).c_str(),
                    cell(jstr(i, "pouch_id"), 36).c_str());
    };
    std::printf("received:\n  %s %s %s %s %s\n", cell("INVITATION", 36).c_str(),
                cell("FROM", 28).c_str(), cell("ROLE", 5).c_str(), cell("STATE", 9).c_str(),
                "POUCH");
    for (const auto& i : received)
        row(i, jopt(i, "inviter_email").value_or(jstr(i, "inviter_account_id")));
    std::printf("sent:\n  %s %s %s %s %s\n", cell("INVITATION", 36).c_str(), cell("TO", 28).c_str(),
                cell("ROLE", 5).c_str(), cell("STATE", 9).c_str(), "POUCH");
    for (const auto& i : sent) row(i, jopt(i, "email").value_or(jstr(i, "invitee_account_id")));
    return kExitOk;
}

int accept(Sharing& sh, const std::string& id) {
    rapidjson::Document inv = sh.received(id);
    if (jstr(inv, "state") != "pending")
        throw CliError(kExitFailure, "invitation " + id + " is " + defang(jstr(inv, "state")));
    Identities::Checked by = sh.inviter(inv);
    sh.list_for(inv, by);
    std::string pouch = fmt::lower_uuid(jstr(inv, "pouch_id"));
    std::string body = "{\"key_envelopes\":[]}";
    ApiAnswer r =
        sh.s.api.call("POST", "/v1/invitations/" + id + "/accept", body,
                      {"Service-Signature: " + fmt::make_service_signature(sh.s.sign, body)});
    if (!r.ok()) throw CliError(kExitFailure, "accept: " + describe(r));
    int sealed = sh.ids.fill_from_grants(pouch, sh.s.sign);
    std::printf(
        "accepted: pouch %s is shared with this account as %s (%d key%s sealed to this "
        "account's devices)\n",
        pouch.c_str(), defang(jstr(inv, "role")).c_str(), sealed, sealed == 1 ? "" : "s");
    std::printf("safety number with %s (%s):\n%s",
                defang(jopt(inv, "inviter_email").value_or(by.identity.account_id)).c_str(),
                pin_word(by.state, by.verified),
                safety_number_rows(sh.ids.mine(), by.identity).c_str());
    return kExitOk;
}

int decline(Sharing& sh, const std::string& id) {
    rapidjson::Document inv = sh.received(id);
    if (jstr(inv, "state") != "pending")
        throw CliError(kExitFailure, "invitation " + id + " is " + defang(jstr(inv, "state")));
    Identities::Checked by = sh.inviter(inv);
    const fmt::AccessList& list = sh.list_for(inv, by);
    const fmt::PublicIdentity& mine = sh.ids.mine();
    fmt::AccessBody b;
    b.pouch_id = list.pouch_id;
    b.seq = list.head_seq + 1;
    b.prev = list.head_hash;
    b.kind = "leave";
    b.by = b.account_id = mine.account_id;
    b.identity_sign_pub = mine.sign_pub;
    b.identity_enc_pub = mine.enc_pub;
    b.role = list.find(mine.account_id)->role;
    // The generation the pouch moves to: one above any this account was given or the list
    // names (the service answers access_conflict when the pouch is further on).
    long long gen = list.key_gen;
    if (inv.HasMember("key_gen") && inv["key_gen"].IsInt64())
        gen = std::max<long long>(gen, inv["key_gen"].GetInt64());
    b.key_gen = gen + 1;
    b.rotated_to = b.key_gen;
    b.at = fmt::rfc3339_utc(fmt::now_unix());
    fmt::SignedStatement st = fmt::sign_access(b, sh.ids.my_keys().sign);
    json::Out o;
    o.kv("statement", st.statement).kv("signature", st.signature);
    std::string body = o.done();
    ApiAnswer r =
        sh.s.api.call("POST", "/v1/invitations/" + id + "/decline", body,
                      {"Service-Signature: " + fmt::make_service_signature(sh.s.sign, body)});
    if (!r.ok()) throw CliError(kExitFailure, "decline: " + describe(r));
    std::printf("declined the invitation to pouch %s\n", list.pouch_id.c_str());
    return kExitOk;
}

}  // namespace

int cmd_invitations(const Args& a) {
    Sharing sh(a);
    if (a.positional.empty()) return list_invitations(sh, a.flag("json"));
    if (a.positional.size() != 2 || (a.positional[0] != "accept" && a.positional[0] != "decline"))
        throw CliError(kExitUsage, "usage: pouch invitations [accept|decline INVITATION]");
    std::string id = checked_uuid(a.positional[1], "INVITATION");
    return a.positional[0] == "accept" ? accept(sh, id) : decline(sh, id);
}

int cmd_shared(const Args& a) {
    Sharing sh(a);
    std::vector<rapidjson::Document> shared;
    for (auto& p : all_items(sh.s.api, "/v1/pouches"))
        if (p.HasMember("shared") && p["shared"].IsTrue()) shared.push_back(std::move(p));
    if (a.flag("json")) {
        json::Out o;
        o.key("items").arr();
        for (const auto& p : shared) o.raw(raw_json(p));
        o.end_arr();
        print_json(o.done());
        return kExitOk;
    }
    std::printf("  %s %s %s\n", cell("POUCH", 36).c_str(), cell("ROLE", 5).c_str(), "OWNER");
    for (const auto& p : shared) {
        std::string owner = jstr(p, "owner_account_id");
        std::printf("  %s %s %s\n", cell(jstr(p, "id"), 36).c_str(),
                    cell(jstr(p, "role"), 5).c_str(),
                    fmt::lower_uuid(owner) == sh.me() ? "this account" : defang(owner).c_str());
    }
    return kExitOk;
}

int cmd_members(const Args& a) {
    if (a.positional.size() != 1) throw CliError(kExitUsage, "usage: pouch members POUCH");
    Sharing sh(a);
    std::string pouch = checked_uuid(a.positional[0], "POUCH");
    const auto& list = sh.ids.access_list(pouch);
    auto members = all_items(sh.s.api, "/v1/pouches/" + pouch + "/members");
    if (a.flag("json")) {
        json::Out o;
        o.kv("pouch_id", pouch).kv("access_list_verified", list.has_value()).key("items").arr();
        for (const auto& m : members) o.raw(raw_json(m));
        o.end_arr();
        print_json(o.done());
        return kExitOk;
    }
    if (!list) {
        std::printf("pouch %s is not shared: this account is its only one\n", pouch.c_str());
        return kExitOk;
    }
    std::printf("  %s %s %s %s %s\n", cell("ACCOUNT", 36).c_str(), cell("EMAIL", 28).c_str(),
                cell("ROLE", 5).c_str(), cell("STATE", 8).c_str(), "IDENTITY");
    for (const auto& m : members) {
        std::string acc = fmt::lower_uuid(jstr(m, "account_id"));
        const fmt::AccessEntry* e = list->find(acc);
        // The role shown is the verified list's; the service's word only when they agree.
        std::string role = e && e->in_list ? e->role : "-";
        std::string note;
        if (!e || !e->in_list)
            note = " (the service lists it; the access list does not)";
        else if (e->role != jstr(m, "role"))
            note = " (the service says " + defang(jstr(m, "role")) + ")";
        auto pin = sh.ids.pin_of(acc);
        std::string who = acc == sh.me()         ? "this account"
                          : pin && pin->verified ? "verified"
                                                 : "not compared";
        std::printf("  %s %s %s %s %s%s\n", cell(acc, 36).c_str(),
                    cell(jopt(m, "email").value_or("-"), 28).c_str(), cell(role, 5).c_str(),
                    cell(jstr(m, "state"), 8).c_str(), who.c_str(), note.c_str());
    }
    return kExitOk;
}

int cmd_verify(const Args& a) {
    if (a.positional.size() != 1) throw CliError(kExitUsage, "usage: pouch verify ACCOUNT|EMAIL");
    Sharing sh(a);
    const std::string& who = a.positional[0];
    bool accept_new = a.flag("accept-new");
    Identities::Checked c;
    std::string label = who;
    if (who.find('@') != std::string::npos) {
        ApiAnswer r = sh.s.api.must("GET", "/v1/identities?email=" + url_encode(who));
        const auto& d = r.data();
        c = sh.ids.check(
            jstr(d, "account_id"),
            {jstr(jobj(d, "identity"), "statement"), jstr(jobj(d, "identity"), "signature")},
            {jstr(jobj(d, "genesis"), "statement"), jstr(jobj(d, "genesis"), "signature")},
            accept_new);
        label = jstr(d, "email");
    } else {
        std::string acc = checked_uuid(who, "ACCOUNT");
        auto pin = sh.ids.pin_of(acc);
        if (!pin)
            throw CliError(kExitFailure, "account " + acc +
                                             " is not pinned on this device: name it by its e-mail "
                                             "address, or accept an invitation or sync a pouch it "
                                             "shares first");
        c.identity = {acc, pin->sign_pub, pin->enc_pub};
        c.state = PinState::same;
        c.verified = pin->verified;
    }
    if (c.identity.account_id == sh.me())
        throw CliError(kExitUsage, "that is this account: a safety number is between two accounts");
    if (a.flag("compared")) {
        sh.ids.mark_verified(c.identity.account_id);
        c.verified = true;
    }
    const fmt::PublicIdentity& mine = sh.ids.mine();
    if (a.flag("json")) {
        json::Out o;
        o.kv("account_id", c.identity.account_id)
            .kv("safety_number", fmt::safety_number(mine, c.identity))
            .kv("qr_text", fmt::safety_number_qr_text(mine, c.identity))
            .kv("pin", c.state == PinState::changed     ? "changed"
                       : c.state == PinState::first_use ? "first_use"
                                                        : "same")
            .kv("verified", c.verified);
        print_json(o.done());
        return kExitOk;
    }
    std::printf("safety number of this account and %s (account %s), %s:\n%s", defang(label).c_str(),
                c.identity.account_id.c_str(), pin_word(c.state, c.verified),
                safety_number_rows(mine, c.identity).c_str());
    std::printf(
        "compare it with the one the other person sees (in person or on a call); when "
        "they match, run `pouch verify %s --compared`\n",
        c.identity.account_id.c_str());
    return kExitOk;
}

}  // namespace pouch::cli
