// login.cpp -- `pouch login` (docs/LOGIN.md, docs/CLIENT-FORMAT.md "Welcome"): keys, PKCE,
// the login start with a DPoP proof, the confirm code, the token long-poll (honouring
// interval and slow_down), then the welcome opened and checked against the verified roster,
// and the pouch keys opened.
#include <fcntl.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "clients/cli/errors.h"
#include "clients/cli/files.h"
#include "clients/cli/session.h"
#include "clients/cli/version.h"
#include "common/clientfmt/welcome.h"
#include "common/crypto/b64url.h"
#include "common/crypto/confirm_code.h"
#include "common/crypto/es256.h"
#include "common/crypto/pkce.h"
#include "common/crypto/random.h"
#include "common/json/out.h"

namespace pouch::cli {

namespace fmt = pouch::clientfmt;

namespace {

long long now_s() {
    return static_cast<long long>(::time(nullptr));
}

void sleep_s(long long s) {
    std::this_thread::sleep_for(std::chrono::seconds(s));
}

size_t code_points(const std::string& s) {
    size_t n = 0;
    for (unsigned char c : s) n += (c & 0xC0) != 0x80;
    return n;
}

std::string default_name() {
    char host[256] = {};
    if (::gethostname(host, sizeof host - 1) != 0 || !host[0]) return "pouch-cli";
    std::string h = host;
    return h.substr(0, 64);
}

long long header_seconds(const ApiAnswer& a, long long fallback) {
    std::string v = a.http.header("retry-after");
    try {
        return v.empty() ? fallback : std::max(1LL, std::stoll(v));
    } catch (const std::exception&) {
        return fallback;
    }
}

// On a desktop session with a terminal, hands the link to the desktop's opener (xdg-open,
// or $BROWSER) in the background; anywhere else the printed link is all there is.
void open_in_browser(const std::string& link) {
    if (!::isatty(STDOUT_FILENO) || (!std::getenv("DISPLAY") && !std::getenv("WAYLAND_DISPLAY")))
        return;
    const char* browser = std::getenv("BROWSER");
    std::string opener = browser && *browser ? browser : "xdg-open";
    pid_t pid = ::fork();
    if (pid == 0) {
        int null = ::open("/dev/null", O_RDWR);
        if (null >= 0) {
            ::dup2(null, STDIN_FILENO);
            ::dup2(null, STDOUT_FILENO);
            ::dup2(null, STDERR_FILENO);
        }
        ::execlp(opener.c_str(), opener.c_str(), link.c_str(), static_cast<char*>(nullptr));
        ::_exit(127);
    }
    // Not waited for: the opener may outlive the login; SIGCHLD is left at its default, so the
    // kernel keeps only a zombie until pouch exits.
}

// docs/CLIENT-FORMAT.md "Welcome": the roster verifies, its genesis and the pinned head are
// the welcome's, the head adds this device's member with this device's keys, and the
// approver is an active member with the keys the welcome names.
void check_welcome(const fmt::Welcome& w, const fmt::Roster& r, const DeviceState& d,
                   const crypto::P256PrivateKey& sign, const crypto::P256PrivateKey& enc) {
    if (w.account_id != d.account_id) throw fmt::FormatError("the welcome names another account");
    if (r.genesis_hash != w.genesis_hash)
        throw fmt::FormatError("the roster's genesis is not the welcome's");
    if (r.hash_at(w.head_seq) != w.head_hash)
        throw fmt::FormatError("roster statement " + std::to_string(w.head_seq) +
                               " is not the one the approver signed");
    const fmt::StatementBody& add = r.bodies[static_cast<size_t>(w.head_seq)];
    if (add.kind != "add" || add.member_id != d.member_id)
        throw fmt::FormatError("the welcome's roster head does not add this device's member");
    if (!(add.sign_pub == fmt::PublicJwk{sign.x(), sign.y()}) ||
        !(add.enc_pub == fmt::PublicJwk{enc.x(), enc.y()}))
        throw fmt::FormatError(
            "the roster adds this device's member with keys that are not this device's");
    const fmt::Member* approver = r.find_active(w.approver_id);
    if (!approver || !(approver->sign_pub == w.approver_sign) ||
        !(approver->enc_pub == w.approver_enc))
        throw fmt::FormatError(
            "the approver is not an active member with the keys the welcome names");
    if (add.by != w.approver_id)
        throw fmt::FormatError("the roster head was not signed by the approver");
}

}  // namespace

int cmd_login(const Args& a) {
    Config cfg = config_from(a);
    if (cfg.logged_in()) {
        DeviceState d = cfg.load_device();
        throw CliError(kExitFailure, "already logged in to " + d.server + " as \"" + d.device_name +
                                         "\"; run `pouch logout` first");
    }
    std::string server = a.get("server").value_or(
        std::getenv("POUCH_SERVER") ? std::getenv("POUCH_SERVER") : "http://127.0.0.1:8080");
    while (!server.empty() && server.back() == '/') server.pop_back();
    if (server.rfind("http://", 0) != 0 && server.rfind("https://", 0) != 0)
        throw CliError(kExitUsage, "--server must be an http:// or https:// address");
    std::string name = a.get("name").value_or(default_name());
    if (code_points(name) < 1 || code_points(name) > 64)
        throw CliError(kExitUsage, "--name must have 1 to 64 characters");
    std::optional<std::string> connect_token = a.get("connect-token");
    if (connect_token && !(connect_token->size() == 39 && connect_token->rfind("svc_lt_", 0) == 0 &&
                           crypto::is_b64url(std::string_view(*connect_token).substr(7))))
        throw CliError(kExitUsage,
                       "--connect-token must be svc_lt_ followed by 32 characters, as the web app "
                       "shows it");

    cfg.ensure_dir();
    cfg.forget_everything();  // the remains of an unfinished login
    auto sign = crypto::P256PrivateKey::generate();
    auto enc = crypto::P256PrivateKey::generate();
    std::string err;
    if (!sign.save(cfg.path("sign.pem"), err) || !enc.save(cfg.path("enc.pem"), err))
        throw CliError(kExitFailure, err);

    std::string verifier = crypto::b64url_encode(crypto::random_bytes(32));
    utsname u{};
    ::uname(&u);
    json::Out body;
    body.kv("code_challenge", crypto::pkce_s256(verifier)).kv("device_name", name);
#ifdef __APPLE__
    body.kv("os", "macos");
#else
    body.kv("os", "linux");
#endif
    body.kv("arch", std::string(u.machine).substr(0, 32)).kv("cli_version", kPouchVersion);
    body.key("sign_pub").raw(sign.public_jwk_json()).key("enc_pub").raw(enc.public_jwk_json());
    body.kv("key_storage", "file");
    if (connect_token) body.kv("connect_token", *connect_token);

    Http http;
    Api api(http, server, &sign);
    CallOptions opt;
    opt.authenticated = false;
    ApiAnswer start = api.call("POST", "/v1/cli-auth/requests", body.done(), {}, opt);
    if (start.status == 401 && start.code == "invalid_dpop_proof")
        throw CliError(kExitFailure,
                       "cannot start the login: " + describe(start) +
                           ". DPoP proofs name the URL they are sent to: give --server "
                           "exactly as the server's public URL (POUCH_PUBLIC_URL)");
    if (!start.ok()) throw CliError(kExitFailure, "cannot start the login: " + describe(start));
    std::string request_id = jstr(start.data(), "request_id");
    std::string url = jstr(start.data(), "authorize_url");
    long long interval = jint(start.data(), "interval");
    long long deadline = now_s() + jint(start.data(), "expires_in");
    std::string code = crypto::confirm_code(request_id, crypto::jwk_thumbprint(sign.x(), sign.y()));
    // docs/CLIENT-FORMAT.md "The approval link": the browser needs this device's public keys,
    // which the request details do not show; the fragment never reaches a server.
    std::string link = url + "#keys=" + sign.x() + "." + sign.y() + "." + enc.x() + "." + enc.y();
    cfg.save_pending_login({server, request_id, link, code, name, deadline});

    std::printf(
        "Open this address in a browser where you are signed in to Pouch Sync:\n\n  %s\n\n"
        "and approve the device \"%s\" if the page shows this confirm code:\n\n  %s\n\n"
        "Waiting for the approval (until it expires in %lld minutes)...\n",
        link.c_str(), name.c_str(), code.c_str(), (deadline - now_s()) / 60);
    std::fflush(stdout);
    open_in_browser(link);

    ApiAnswer tok;
    while (true) {
        long long left = deadline - now_s();
        if (left <= 0)
            throw CliError(kExitLoginRefused,
                           "the login expired before it was approved; run `pouch login` again");
        json::Out t;
        t.kv("request_id", request_id)
            .kv("code_verifier", verifier)
            .kv("wait", std::min(30LL, std::max(1LL, left)));
        CallOptions topt;
        topt.authenticated = false;
        topt.timeout_seconds = 50;
        topt.retry = false;
        auto sent = std::chrono::steady_clock::now();
        try {
            tok = api.call("POST", "/v1/cli-auth/token", t.done(), {}, topt);
        } catch (const CliError& e) {
            if (e.code != kExitUnreachable) throw;
            std::fprintf(stderr, "%s; trying again in %lld s\n", e.what(), interval);
            sleep_s(interval);
            continue;
        }
        if (tok.ok() && jstr(tok.data(), "status") == "approved") break;
        if (tok.ok()) {
            if (tok.data().HasMember("interval")) interval = jint(tok.data(), "interval");
            // A pending answer that came back at once (no long-poll) waits out the interval.
            if (std::chrono::steady_clock::now() - sent < std::chrono::seconds(1))
                sleep_s(interval);
            continue;
        }
        if (tok.status == 429) {
            if (tok.code == "slow_down") interval += 5;  // RFC 8628 §3.5
            sleep_s(header_seconds(tok, interval));
            continue;
        }
        if (tok.status >= 502) {
            sleep_s(header_seconds(tok, interval));
            continue;
        }
        if (tok.status == 403)
            throw CliError(kExitLoginRefused, "the login was denied in the browser");
        if (tok.status == 410)
            throw CliError(kExitLoginRefused,
                           "the login expired before it was approved; run `pouch login` again");
        throw CliError(kExitFailure, "the login failed: " + describe(tok));
    }

    const auto& d = tok.data();
    DeviceState dev;
    dev.server = server;
    dev.device_id = jstr(d, "device_id");
    dev.member_id = jstr(d, "member_id");
    dev.account_id = jstr(d, "storage_account_id");
    dev.device_name = name;
    dev.request_id = request_id;
    dev.access_token = jstr(d, "access_token");
    dev.refresh_token = jstr(d, "refresh_token");
    dev.access_expires_at = now_s() + jint(d, "expires_in");
    cfg.save_device(dev);  // the tokens come once: keep them before anything else can fail
    remove_file(cfg.path("login.json"));

    try {
        fmt::Welcome w = fmt::open_welcome(jstr(d, "welcome"), enc, request_id);
        // Pinned before anything else: every later run checks that the roster still holds
        // the very statement the approver signed for this device.
        dev.genesis_hash = w.genesis_hash;
        dev.pin_seq = w.head_seq;
        dev.pin_hash = w.head_hash;
        cfg.save_device(dev);
        Api authed(http, cfg, dev, sign);
        Trust trust(authed, cfg, dev);
        check_welcome(w, trust.roster(), dev, sign, enc);
        int keys = trust.fetch_keys();
        std::printf("Logged in to %s as \"%s\" (device %s). This device holds %d pouch key%s.\n",
                    server.c_str(), name.c_str(), dev.device_id.c_str(), keys,
                    keys == 1 ? "" : "s");
    } catch (const fmt::FormatError& e) {
        throw CliError(kExitIntegrity,
                       std::string("the approval does not check out: ") + e.what() +
                           ". This device trusts nothing of it; run `pouch logout` to "
                           "revoke it.");
    }
    return kExitOk;
}

}  // namespace pouch::cli
