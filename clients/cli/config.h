// config.h -- where `pouch` keeps its state: $XDG_CONFIG_HOME/pouch (else ~/.config/pouch),
// mode 0700, with the device's keys (sign.pem, enc.pem, 0600), its session (device.json,
// 0600), its opened pouch keys (keys.json, 0600) and one state file per synced folder
// (folders/). Every file is replaced atomically.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "common/crypto/p256_private.h"

namespace pouch::cli {

// The enrolled device: who it is and its tokens. Written once the login is redeemed.
struct DeviceState {
    std::string server;  // base URL, no trailing slash
    std::string device_id, member_id, account_id, device_name, request_id;
    std::string access_token, refresh_token;
    long long access_expires_at = 0;  // unix seconds
    // The roster head last verified (the pin of docs/CLIENT-FORMAT.md step 5).
    long long pin_seq = -1;
    std::string pin_hash, genesis_hash;
    // Logged in with --insecure-http: plain HTTP to a host that is not this computer, said
    // on every run (decisions §15).
    bool insecure_http = false;
    // Logged in with --ca-file: the absolute path of the PEM file that alone is trusted for
    // this server's https (read again on every run, so a renewed certificate is picked up).
    std::string ca_file;

    std::string to_json() const;
    static DeviceState from_json(const std::string& text);  // throws CliError
};

// The login in progress (login.json): what `pouch status` shows while the browser decides --
// the approval link this CLI built (its fragment holds the nonce), the code to type on the
// page and the key fingerprint the page must show.
struct PendingLogin {
    std::string server, request_id, approval_link, confirm_code, fingerprint, device_name;
    long long expires_at = 0;
};

// One opened pouch key and the member whose key envelope carried it. `creator` is "" for a key
// read from a keys.json of version 1, which did not record it: Trust opens its envelope again
// (and checks its creator) before it uses the key.
struct HeldKey {
    std::string key;  // 32 bytes
    std::string creator;
};

// The opened keys of one pouch by key_gen, and the highest generation this device ever held.
// `high` never goes down, not even when a key is dropped: nothing is written below it
// (docs/CLIENT-FORMAT.md "Rollback").
struct PouchKeys {
    std::map<long long, HeldKey> gens;
    long long high = 0;
};

// keys.json: pouch id -> its keys.
using Keyring = std::map<std::string, PouchKeys>;

class Config {
  public:
    explicit Config(std::string dir);
    static std::string default_dir();  // from XDG_CONFIG_HOME / HOME

    const std::string& dir() const { return dir_; }
    std::string path(const std::string& name) const;
    void ensure_dir() const;  // 0700, also folders/

    bool logged_in() const;
    DeviceState load_device() const;  // CliError kExitNeedLogin when there is none
    void save_device(const DeviceState& d) const;

    std::optional<PendingLogin> load_pending_login() const;
    void save_pending_login(const PendingLogin& p) const;

    crypto::P256PrivateKey sign_key() const;
    crypto::P256PrivateKey enc_key() const;

    Keyring load_keys() const;
    void save_keys(const Keyring& k) const;

    // Removes the session, the keys and the folder states (logout).
    void forget_everything() const;

  private:
    crypto::P256PrivateKey load_key(const char* name) const;
    std::string dir_;
};

}  // namespace pouch::cli
