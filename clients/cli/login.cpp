// login.cpp -- `pouch login` (docs/LOGIN.md, docs/CLIENT-FORMAT.md "The approval link" and
// "Welcome"), cut along its concerns: the argument checks, the keys and the login start with a
// DPoP proof, the approval link built here (its nonce never leaves this machine) with the
// server's authorize_url only compared with it, the token long-poll (honouring interval and
// slow_down), then the welcome opened and checked against the verified roster.
#include <fcntl.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "clients/cli/approval_link.h"
#include "clients/cli/errors.h"
#include "clients/cli/files.h"
#include "clients/cli/server_url.h"
#include "clients/cli/session.h"
#include "clients/cli/terminal_text.h"
#include "clients/cli/version.h"
#include "common/clientfmt/welcome.h"
#include "common/crypto/b64url.h"
#include "common/crypto/confirm_code.h"
#include "common/crypto/pkce.h"
#include "common/crypto/random.h"
#include "common/json/label.h"
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

long long header_seconds(const ApiAnswer& a, long long fallback) {
    std::string v = a.http.header("retry-after");
    try {
        return v.empty() ? fallback : std::clamp(std::stoll(v), 1LL, 60LL);
    } catch (const std::exception&) {
        return fallback;
    }
}

// ---- the command line ----------------------------------------------------------------------

struct LoginArgs {
    ServerUrl server;
    bool insecure_http = false;
    std::string ca_file;  // --ca-file, absolute; pinned in device.json for later runs
    std::string name;     // NFC, a valid label (decisions §15)
    std::optional<std::string> connect_token;
};

// The host name, reduced to a valid label (its characters are almost always ASCII already).
std::string default_name() {
    char host[256] = {};
    if (::gethostname(host, sizeof host - 1) != 0) return "pouch-cli";
    std::string h = first_chars(defang(host), 64);
    if (json::label_problem(h)) return "pouch-cli";
    return h;
}

LoginArgs check_login_args(const Args& a) {
    LoginArgs l;
    const char* env = std::getenv("POUCH_SERVER");
    l.server =
        parse_server_url(a.get("server").value_or(env && *env ? env : "http://127.0.0.1:8080"));
    l.insecure_http = a.flag("insecure-http");
    require_transport(l.server, l.insecure_http);
    l.ca_file = ca_file_option(a).value_or("");
    auto given = a.get("name");
    l.name = given ? checked_device_name(*given, "--name") : default_name();
    l.connect_token = a.get("connect-token");
    const auto& t = l.connect_token;
    if (t && !(t->size() == 39 && t->rfind("svc_lt_", 0) == 0 &&
               crypto::is_b64url(std::string_view(*t).substr(7))))
        throw CliError(kExitUsage,
                       "--connect-token must be svc_lt_ followed by 32 characters, as the web app "
                       "shows it");
    return l;
}

// ---- keys and the login start ----------------------------------------------------------------

struct DeviceKeys {
    crypto::P256PrivateKey sign, enc;
};

DeviceKeys make_keys(const Config& cfg) {
    cfg.ensure_dir();
    cfg.forget_everything();  // the remains of an unfinished login
    DeviceKeys k{crypto::P256PrivateKey::generate(), crypto::P256PrivateKey::generate()};
    std::string err;
    if (!k.sign.save(cfg.path("sign.pem"), err) || !k.enc.save(cfg.path("enc.pem"), err))
        throw CliError(kExitFailure, err);
    return k;
}

std::string start_body(const LoginArgs& l, const DeviceKeys& k, const std::string& verifier) {
    utsname u{};
    ::uname(&u);
    json::Out body;
    body.kv("code_challenge", crypto::pkce_s256(verifier)).kv("device_name", l.name);
#ifdef __APPLE__
    body.kv("os", "macos");
#else
    body.kv("os", "linux");
#endif
    body.kv("arch", std::string(u.machine).substr(0, 32)).kv("cli_version", kPouchVersion);
    body.key("sign_pub").raw(k.sign.public_jwk_json()).key("enc_pub").raw(k.enc.public_jwk_json());
    body.kv("key_storage", "file");
    if (l.connect_token) body.kv("connect_token", *l.connect_token);
    return body.done();
}

struct Started {
    std::string request_id, verifier;
    long long interval = 5, deadline = 0;
};

// Starts the login and checks what the server answered: a canonical request id, and an
// authorize_url that is exactly the one this CLI builds from its own --server (a server that
// names another address is trying to send the person somewhere else: exit 5).
Started start_login(Api& api, const LoginArgs& l, const DeviceKeys& k) {
    Started s;
    s.verifier = crypto::b64url_encode(crypto::random_bytes(32));
    CallOptions opt;
    opt.authenticated = false;
    ApiAnswer a = api.call("POST", "/v1/cli-auth/requests", start_body(l, k, s.verifier), {}, opt);
    if (a.status == 401 && a.code == "invalid_dpop_proof")
        throw CliError(kExitFailure,
                       "cannot start the login: " + describe(a) +
                           ". DPoP proofs name the URL they are sent to: give --server "
                           "exactly as the server's public URL (POUCH_PUBLIC_URL)");
    if (!a.ok()) throw CliError(kExitFailure, "cannot start the login: " + describe(a));
    s.request_id = jstr(a.data(), "request_id");
    if (!valid_request_id(s.request_id))
        throw CliError(kExitIntegrity,
                       "the server's login request id is not a lower-case UUID (\"" +
                           defang(first_chars(s.request_id, 80)) + "\"); this login is stopped");
    std::string got = jstr(a.data(), "authorize_url");
    std::string want = expected_authorize_url(l.server.base, s.request_id);
    if (got != want)
        throw CliError(kExitIntegrity,
                       "the server named another approval address than its own: it answered \"" +
                           defang(first_chars(got, 300)) + "\" where " + want +
                           " was expected. This login is stopped; do not open that address");
    s.interval = std::clamp(jint(a.data(), "interval"), 1LL, 60LL);
    s.deadline = now_s() + std::clamp(jint(a.data(), "expires_in"), 1LL, 900LL);
    return s;
}

// ---- what the person is shown ------------------------------------------------------------

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

void show_prompt(const ApprovalPrompt& p, const std::string& name, long long minutes) {
    std::printf(
        "Open this address in a browser where you are signed in to Pouch Sync:\n\n  %s\n\n"
        "then type this code on the page: %s\n\n"
        "The page must show this device key fingerprint: %s\n"
        "Approve the device \"%s\" only if it does.\n\n"
        "Waiting for the approval (until it expires in %lld minutes)...\n",
        defang(p.link).c_str(), p.code.c_str(), p.fingerprint.c_str(), defang(name).c_str(),
        minutes);
    std::fflush(stdout);
}

// ---- waiting for the browser -------------------------------------------------------------

// The token long-poll until the login is approved (its approved form), denied or expired.
// Transport errors and 5xx wait an interval and poll again; slow_down adds 5 s (RFC 8628).
ApiAnswer wait_for_approval(Api& api, Started& s) {
    while (true) {
        long long left = s.deadline - now_s();
        if (left <= 0)
            throw CliError(kExitLoginRefused,
                           "the login expired before it was approved; run `pouch login` again");
        json::Out t;
        t.kv("request_id", s.request_id)
            .kv("code_verifier", s.verifier)
            .kv("wait", std::min(30LL, std::max(1LL, left)));
        CallOptions opt;
        opt.authenticated = false;
        opt.timeout_seconds = 50;
        opt.retry = false;
        auto sent = std::chrono::steady_clock::now();
        ApiAnswer tok;
        try {
            tok = api.call("POST", "/v1/cli-auth/token", t.done(), {}, opt);
        } catch (const CliError& e) {
            if (e.code != kExitUnreachable) throw;
            std::fprintf(stderr, "%s; trying again in %lld s\n", defang(e.what()).c_str(),
                         s.interval);
            sleep_s(s.interval);
            continue;
        }
        if (tok.ok() && jstr(tok.data(), "status") == "approved") return tok;
        if (tok.ok()) {
            if (tok.data().HasMember("interval"))
                s.interval = std::clamp(jint(tok.data(), "interval"), 1LL, 60LL);
            // A pending answer that came back at once (no long-poll) waits out the interval.
            if (std::chrono::steady_clock::now() - sent < std::chrono::seconds(1))
                sleep_s(s.interval);
            continue;
        }
        if (tok.status == 429) {
            if (tok.code == "slow_down") s.interval = std::min(s.interval + 5, 60LL);
            sleep_s(header_seconds(tok, s.interval));
            continue;
        }
        if (tok.status >= 502) {
            sleep_s(header_seconds(tok, s.interval));
            continue;
        }
        if (tok.status == 403)
            throw CliError(kExitLoginRefused, "the login was denied in the browser");
        if (tok.status == 410)
            throw CliError(kExitLoginRefused,
                           "the login expired before it was approved; run `pouch login` again");
        throw CliError(kExitFailure, "the login failed: " + describe(tok));
    }
}

// ---- the welcome -----------------------------------------------------------------------------

// docs/CLIENT-FORMAT.md "Welcome": the roster verifies, its genesis and the pinned head are
// the welcome's, the head adds this device's member with this device's keys, and the
// approver is an active member with the keys the welcome names.
void check_welcome(const fmt::Welcome& w, const fmt::Roster& r, const DeviceState& d,
                   const DeviceKeys& k) {
    if (w.account_id != d.account_id) throw fmt::FormatError("the welcome names another account");
    if (r.genesis_hash != w.genesis_hash)
        throw fmt::FormatError("the roster's genesis is not the welcome's");
    if (r.hash_at(w.head_seq) != w.head_hash)
        throw fmt::FormatError("roster statement " + std::to_string(w.head_seq) +
                               " is not the one the approver signed");
    const fmt::StatementBody& add = r.bodies[static_cast<size_t>(w.head_seq)];
    if (add.kind != "add" || add.member_id != d.member_id)
        throw fmt::FormatError("the welcome's roster head does not add this device's member");
    if (!(add.sign_pub == fmt::PublicJwk{k.sign.x(), k.sign.y()}) ||
        !(add.enc_pub == fmt::PublicJwk{k.enc.x(), k.enc.y()}))
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

// Keeps the tokens of the approved form, then opens the welcome, pins the roster head it
// names, checks it against the verified roster and opens this member's pouch keys.
void enrol(const Config& cfg, Http& http, const LoginArgs& l, const Started& s,
           const ApiAnswer& tok, const DeviceKeys& k) {
    const auto& d = tok.data();
    DeviceState dev;
    dev.server = l.server.base;
    dev.insecure_http = l.insecure_http && !l.server.https && !l.server.loopback;
    dev.ca_file = l.ca_file;
    dev.device_id = jstr(d, "device_id");
    dev.member_id = jstr(d, "member_id");
    dev.account_id = jstr(d, "storage_account_id");
    dev.device_name = l.name;
    dev.request_id = s.request_id;
    dev.access_token = jstr(d, "access_token");
    dev.refresh_token = jstr(d, "refresh_token");
    dev.access_expires_at = now_s() + std::clamp(jint(d, "expires_in"), 0LL, 86400LL);
    cfg.save_device(dev);  // the tokens come once: keep them before anything else can fail
    remove_file(cfg.path("login.json"));
    try {
        fmt::Welcome w = fmt::open_welcome(jstr(d, "welcome"), k.enc, s.request_id);
        // Pinned before anything else: every later run checks that the roster still holds
        // the very statement the approver signed for this device.
        dev.genesis_hash = w.genesis_hash;
        dev.pin_seq = w.head_seq;
        dev.pin_hash = w.head_hash;
        cfg.save_device(dev);
        Api authed(http, cfg, dev, k.sign);
        Trust trust(authed, cfg, dev);
        check_welcome(w, trust.roster(), dev, k);
        int keys = trust.fetch_keys();
        std::printf("Logged in to %s as \"%s\" (device %s). This device holds %d pouch key%s.\n",
                    dev.server.c_str(), defang(l.name).c_str(), defang(dev.device_id).c_str(), keys,
                    keys == 1 ? "" : "s");
        // The account's identity (docs/SHARING.md §1), when the approver sealed it to this
        // device; an account without one yet gets it at its next web sign-in, and the commands
        // that need it open it then.
        Identities ids(authed, cfg, dev, trust, k.sign);
        try {
            ids.mine();
        } catch (const CliError& e) {
            if (e.code == kExitIntegrity) throw;
        }
    } catch (const fmt::FormatError& e) {
        throw CliError(kExitIntegrity,
                       std::string("the approval does not check out: ") + e.what() +
                           ". This device trusts nothing of it; run `pouch logout` to "
                           "revoke it.");
    }
}

}  // namespace

int cmd_login(const Args& a) {
    Config cfg = config_from(a);
    if (cfg.logged_in()) {
        DeviceState d = cfg.load_device();
        throw CliError(kExitFailure, "already logged in to " + d.server + " as \"" + d.device_name +
                                         "\"; run `pouch logout` first");
    }
    LoginArgs l = check_login_args(a);
    if (l.insecure_http && !l.server.https && !l.server.loopback)
        std::fprintf(stderr, "pouch: %s\n", insecure_http_warning(l.server).c_str());

    DeviceKeys k = make_keys(cfg);
    std::string nonce = crypto::random_bytes(crypto::kConfirmNonceBytes);  // never sent
    Http http;
    http.set_ca_file(l.ca_file);
    Api api(http, l.server.base, &k.sign);
    Started s = start_login(api, l, k);
    ApprovalPrompt p = approval_prompt(l.server.base, s.request_id, {k.sign.x(), k.sign.y()},
                                       {k.enc.x(), k.enc.y()}, nonce);
    cfg.save_pending_login(
        {l.server.base, s.request_id, p.link, p.code, p.fingerprint, l.name, s.deadline});
    show_prompt(p, l.name, (s.deadline - now_s()) / 60);
    open_in_browser(p.link);

    ApiAnswer tok = wait_for_approval(api, s);
    enrol(cfg, http, l, s, tok, k);
    return kExitOk;
}

}  // namespace pouch::cli
