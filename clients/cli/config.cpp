// config.cpp -- the CLI's state directory (config.h): JSON files read with the strict parser
// and written with json::Out, always through files.h's atomic replacement.
#include "clients/cli/config.h"

#include <dirent.h>

#include <algorithm>
#include <cstdlib>

#include "clients/cli/errors.h"
#include "clients/cli/files.h"
#include "common/clientfmt/encoding.h"
#include "common/crypto/b64url.h"
#include "common/json/out.h"

namespace pouch::cli {

namespace fmt = pouch::clientfmt;

std::string DeviceState::to_json() const {
    json::Out o;
    o.kv("v", 1).kv("server", server).kv("device_id", device_id).kv("member_id", member_id);
    o.kv("account_id", account_id).kv("device_name", device_name).kv("request_id", request_id);
    o.kv("access_token", access_token).kv("refresh_token", refresh_token);
    o.kv("access_expires_at", access_expires_at);
    o.kv("pin_seq", pin_seq).kv("pin_hash", pin_hash).kv("genesis_hash", genesis_hash);
    if (insecure_http) o.kv("insecure_http", true);
    if (!ca_file.empty()) o.kv("ca_file", ca_file);
    return o.done();
}

DeviceState DeviceState::from_json(const std::string& text) {
    try {
        auto d = fmt::parse_object(text);
        DeviceState s;
        s.server = fmt::get_str(d, "server");
        s.device_id = fmt::get_str(d, "device_id");
        s.member_id = fmt::get_str(d, "member_id");
        s.account_id = fmt::get_str(d, "account_id");
        s.device_name = fmt::get_str(d, "device_name");
        s.request_id = fmt::get_str(d, "request_id");
        s.access_token = fmt::get_str(d, "access_token");
        s.refresh_token = fmt::get_str(d, "refresh_token");
        s.access_expires_at = fmt::get_int(d, "access_expires_at");
        s.pin_seq = fmt::get_int(d, "pin_seq");
        s.pin_hash = fmt::get_str(d, "pin_hash");
        s.genesis_hash = fmt::get_str(d, "genesis_hash");
        if (d.HasMember("insecure_http")) {
            if (!d["insecure_http"].IsBool())
                throw fmt::FormatError("insecure_http is not a boolean");
            s.insecure_http = d["insecure_http"].GetBool();
        }
        s.ca_file = fmt::get_opt_str(d, "ca_file").value_or("");
        return s;
    } catch (const fmt::FormatError& e) {
        throw CliError(kExitFailure, std::string("device.json is damaged: ") + e.what());
    }
}

Config::Config(std::string dir) : dir_(std::move(dir)) {}

std::string Config::default_dir() {
    if (const char* x = std::getenv("XDG_CONFIG_HOME"); x && *x) return join_path(x, "pouch");
    const char* home = std::getenv("HOME");
    if (!home || !*home) throw CliError(kExitFailure, "neither XDG_CONFIG_HOME nor HOME is set");
    return join_path(join_path(home, ".config"), "pouch");
}

std::string Config::path(const std::string& name) const {
    return join_path(dir_, name);
}

void Config::ensure_dir() const {
    make_dirs(dir_, 0700);
    make_dirs(path("folders"), 0700);
}

bool Config::logged_in() const {
    return exists(path("device.json"));
}

DeviceState Config::load_device() const {
    auto text = read_file(path("device.json"));
    if (!text) throw CliError(kExitNeedLogin, "not logged in: run `pouch login` first");
    return DeviceState::from_json(*text);
}

void Config::save_device(const DeviceState& d) const {
    ensure_dir();
    write_file_atomic(path("device.json"), d.to_json(), 0600);
}

std::optional<PendingLogin> Config::load_pending_login() const {
    auto text = read_file(path("login.json"));
    if (!text) return std::nullopt;
    try {
        auto d = fmt::parse_object(*text);
        return PendingLogin{fmt::get_str(d, "server"),        fmt::get_str(d, "request_id"),
                            fmt::get_str(d, "approval_link"), fmt::get_str(d, "confirm_code"),
                            fmt::get_str(d, "fingerprint"),   fmt::get_str(d, "device_name"),
                            fmt::get_int(d, "expires_at")};
    } catch (const fmt::FormatError&) {
        return std::nullopt;
    }
}

void Config::save_pending_login(const PendingLogin& p) const {
    ensure_dir();
    json::Out o;
    o.kv("server", p.server).kv("request_id", p.request_id).kv("approval_link", p.approval_link);
    o.kv("confirm_code", p.confirm_code).kv("fingerprint", p.fingerprint);
    o.kv("device_name", p.device_name);
    o.kv("expires_at", p.expires_at);
    try {
        o.key("sign_pub").raw(sign_key().public_jwk_json());
        o.key("enc_pub").raw(enc_key().public_jwk_json());
    } catch (const CliError&) {
    }
    write_file_atomic(path("login.json"), o.done(), 0600);
}

crypto::P256PrivateKey Config::load_key(const char* name) const {
    std::string err;
    auto k = crypto::P256PrivateKey::load(path(name), err);
    if (!k)
        throw CliError(kExitNeedLogin,
                       "this device has no usable key (" + err + "): run `pouch login`");
    return *k;
}

crypto::P256PrivateKey Config::sign_key() const {
    return load_key("sign.pem");
}
crypto::P256PrivateKey Config::enc_key() const {
    return load_key("enc.pem");
}

// keys.json, version 2: {"v":2,"pouches":[{"id","high","keys":[{"key_gen","key","creator"}]}]}
// (arrays, not objects keyed by id, so that no count of pouches or generations meets the
// parser's member budget). Version 1, {"v":1,"pouches":{id:{gen:key}}}, is read too: its keys
// have no creator (re-verified before use) and its high is its highest generation.
Keyring Config::load_keys() const {
    Keyring k;
    auto text = read_file(path("keys.json"));
    if (!text) return k;
    auto key_of = [](const std::string& b64) {
        auto key = crypto::b64url_decode(b64);
        if (!key || key->size() != 32) throw fmt::FormatError("a key is not 32 bytes of b64url");
        return *key;
    };
    try {
        auto d = fmt::parse_object(*text);
        long long v = fmt::get_int(d, "v");
        if (v == 1) {
            for (const auto& pouch : fmt::get_obj(d, "pouches").GetObject()) {
                PouchKeys& pk =
                    k[std::string(pouch.name.GetString(), pouch.name.GetStringLength())];
                for (const auto& gen : pouch.value.GetObject()) {
                    if (!gen.value.IsString()) throw fmt::FormatError("a key is not a string");
                    long long g = std::stoll(gen.name.GetString());
                    pk.gens[g] = {key_of(gen.value.GetString()), ""};
                    pk.high = std::max(pk.high, g);
                }
            }
        } else if (v == 2) {
            for (const auto& pouch : fmt::get_arr(d, "pouches").GetArray()) {
                PouchKeys& pk = k[fmt::lower_uuid(fmt::get_str(pouch, "id"))];
                pk.high = fmt::get_int(pouch, "high");
                for (const auto& e : fmt::get_arr(pouch, "keys").GetArray()) {
                    long long g = fmt::get_int(e, "key_gen");
                    std::string creator = fmt::get_str(e, "creator");
                    if (!creator.empty()) creator = fmt::lower_uuid(creator);
                    pk.gens[g] = {key_of(fmt::get_str(e, "key")), creator};
                    pk.high = std::max(pk.high, g);
                }
            }
        } else {
            throw fmt::FormatError("unknown version " + std::to_string(v));
        }
    } catch (const std::exception& e) {
        throw CliError(kExitFailure, std::string("keys.json is damaged: ") + e.what());
    }
    return k;
}

void Config::save_keys(const Keyring& k) const {
    json::Out o;
    o.kv("v", 2).key("pouches").arr();
    for (const auto& [pouch, pk] : k) {
        o.obj().kv("id", pouch).kv("high", pk.high).key("keys").arr();
        for (const auto& [gen, held] : pk.gens)
            o.obj()
                .kv("key_gen", gen)
                .kv("key", crypto::b64url_encode(held.key))
                .kv("creator", held.creator)
                .end_obj();
        o.end_arr().end_obj();
    }
    o.end_arr();
    ensure_dir();
    write_file_atomic(path("keys.json"), o.done(), 0600);
}

void Config::forget_everything() const {
    for (const char* f : {"device.json", "keys.json", "login.json", "sign.pem", "enc.pem",
                          "identity.pem", "identity-enc.pem", "identities.json"})
        remove_file(path(f));
    if (DIR* d = ::opendir(path("folders").c_str())) {
        while (dirent* e = ::readdir(d)) {
            std::string n = e->d_name;
            if (n != "." && n != "..") remove_file(join_path(path("folders"), n));
        }
        ::closedir(d);
    }
}

}  // namespace pouch::cli
