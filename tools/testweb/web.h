// web.h -- pouch-testweb, the dev/test stand-in for the browser member of an account (never
// shipped, never part of the service): it signs up, does genesis, approves and revokes CLI
// logins and reads and writes files, with real keys and the real client format
// (common/clientfmt), over the public API with a web session. Its state lives in one
// directory: web.json, sign.pem, enc.pem (the member's keys) and keys.json (pouch keys).
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "clients/cli/api.h"
#include "clients/cli/args.h"
#include "clients/cli/config.h"
#include "clients/cli/http.h"
#include "common/clientfmt/artifact.h"
#include "common/clientfmt/roster.h"

namespace testweb {

using Args = std::vector<std::string>;

using PouchKeyMap = std::map<std::string, std::map<long long, std::string>>;

struct WebState {
    std::string dir;
    std::string server, email, session_token, account_id, member_id, pouch_id;

    static WebState load(const std::string& dir);  // throws CliError
    void save() const;
    std::string path(const std::string& name) const;
};

// Pins http to the certificates of POUCH_CA_FILE when it is set (main.cpp).
void pin_ca(pouch::cli::Http& http);

// A web caller: every request carries the session as a Bearer token.
class Web {
  public:
    explicit Web(WebState st);
    WebState st;
    pouch::cli::Http http;
    pouch::cli::Api api;

    // opt as for Api::call (content type, raw); the session always goes as the Bearer token.
    pouch::cli::ApiAnswer call(const std::string& method, const std::string& path,
                               const std::string& body = "", pouch::cli::CallOptions opt = {});
    pouch::cli::ApiAnswer must(const std::string& method, const std::string& path,
                               const std::string& body = "", pouch::cli::CallOptions opt = {});
    // Every item of a paged list, as a web caller.
    void list(const std::string& path, const std::string& query,
              const std::function<void(const rapidjson::Value&)>& each, int limit = 1000);
    pouch::crypto::P256PrivateKey sign_key() const;
    pouch::crypto::P256PrivateKey enc_key() const;
    pouch::clientfmt::Roster roster();  // fetched and verified
    // This member's pouch keys, opened from the server: pouch id -> key_gen -> key (creators
    // checked against r: trusted at the envelope's generation).
    PouchKeyMap keys(const pouch::clientfmt::Roster& r);
};

// What a put of the web pouch needs: its current generation, this member's key of it and the
// pouch's epoch.
struct WriteKey {
    long long gen = 0;
    std::string key, epoch;
};
WriteKey current_write_key(Web& w, const PouchKeyMap& keys);

// Seals `c` under k, signs it as this member and commits it as one put on `artifact` (on
// `base`, its head, or as a new artifact). CliError naming `what` unless it was applied.
void commit_put(Web& w, const WriteKey& k, const pouch::clientfmt::Content& c,
                const std::string& artifact, const std::optional<std::string>& base,
                const std::vector<std::string>& blob_ids, const std::string& what);

// The --state DIR of a command (CliError 2 without it), and a key's public JWK.
std::string state_dir(const pouch::cli::Args& a);
pouch::clientfmt::PublicJwk jwk(const pouch::crypto::P256PrivateKey& k);

int cmd_signup(const Args& a);
int cmd_genesis(const Args& a);
int cmd_approve(const Args& a);
int cmd_revoke(const Args& a);
int cmd_rotate(const Args& a);
int cmd_seal(const Args& a);
int cmd_put(const Args& a);
int cmd_get(const Args& a);
int cmd_identity(const Args& a);
int cmd_invite(const Args& a);
int cmd_role(const Args& a);
int cmd_remove(const Args& a);

// The identity envelope (JSON) of a member being approved, when this account has made its
// identity (sharing.cpp); nullopt before.
std::optional<std::string> identity_envelope_for(Web& w, const std::string& member_id,
                                                 const pouch::clientfmt::PublicJwk& enc_pub);
int cmd_craft(const Args& a);  // any name, mode or kind, for the CLI suite (craft.cpp)
int cmd_hpke(const Args& a);   // the interop suite's HPKE driver (hpke.cpp)

}  // namespace testweb
