// api.cpp -- authenticated, retried API calls for the CLI (api.h) on http.h, the DPoP proofs
// of common/clientfmt/proofs.h and the strict JSON parser.
#include "clients/cli/api.h"

#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include <cctype>
#include <chrono>
#include <cstdlib>
#include <thread>

#include "clients/cli/errors.h"
#include "clients/cli/files.h"
#include "clients/cli/terminal_text.h"
#include "common/clientfmt/encoding.h"
#include "common/clientfmt/proofs.h"
#include "common/json/out.h"
#include "common/json/parse.h"

namespace pouch::cli {

namespace {

long long now_s() {
    return static_cast<long long>(::time(nullptr));
}

void sleep_s(double s) {
    std::this_thread::sleep_for(std::chrono::milliseconds(static_cast<long>(s * 1000)));
}

// Answers worth the same request again, after Retry-After or a pause: too many at once (429),
// a body that did not arrive in time (408: a slow link; docs/SYNC.md), and
// nginx's or a dependency's unavailability (502, 503, 504).
bool transient_status(int status) {
    return status == 408 || status == 429 || status == 502 || status == 503 || status == 504;
}

double retry_after(const ApiAnswer& a, double fallback) {
    std::string v = a.http.header("retry-after");
    if (v.empty()) return fallback;
    try {
        double s = std::stod(v);
        return s < 0 ? fallback : std::min(s, 30.0);
    } catch (const std::exception&) {
        return fallback;
    }
}

constexpr int kMaxAttempts = 6;

// The answer with every bearer token (decisions §1: svc_<kind>_ and 43 b64url characters)
// overwritten by x's after its prefix: the log keeps the answer's shape, which the OpenAPI
// check matches against the token patterns, but no credential.
std::string redact_tokens(std::string body) {
    constexpr size_t kPrefix = 7, kSecret = 43;  // "svc_at_", then b64url of 32 bytes
    auto b64url = [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_';
    };
    for (size_t at = body.find("svc_"); at != std::string::npos; at = body.find("svc_", at + 1)) {
        if (body.size() - at < kPrefix + kSecret || !std::islower(body[at + 4]) ||
            !std::islower(body[at + 5]) || body[at + 6] != '_')
            continue;
        size_t end = at + kPrefix;
        while (end < body.size() && b64url(body[end])) ++end;
        if (end - at - kPrefix == kSecret) body.replace(at + kPrefix, kSecret, kSecret, 'x');
    }
    return body;
}

// POUCH_API_LOG=FILE appends every JSON answer as one line {method, path, status, body}: the
// OpenAPI check of `make test` validates what the CLI suite received (tests/openapi/).
void log_answer(const std::string& method, const std::string& path, long status,
                const std::string& body) {
    const char* file = std::getenv("POUCH_API_LOG");
    if (!file || !*file) return;
    json::Out o;
    o.kv("method", method)
        .kv("path", path)
        .kv("status", static_cast<long long>(status))
        .kv("body", redact_tokens(body));
    std::string line = o.done() + "\n";
    int fd = ::open(file, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0) return;
    ssize_t n =
        ::write(fd, line.data(), line.size());  // one write: lines of parallel processes stay whole
    (void)n;
    ::close(fd);
}

}  // namespace

const rapidjson::Value& ApiAnswer::data() const {
    if (!doc.IsObject() || !doc.HasMember("data"))
        throw CliError(kExitFailure, "the server's answer has no data");
    return doc["data"];
}

std::optional<std::string> ApiAnswer::next_cursor() const {
    if (!doc.IsObject() || !doc.HasMember("meta")) return std::nullopt;
    const auto& m = doc["meta"];
    if (!m.IsObject() || !m.HasMember("next_cursor") || !m["next_cursor"].IsString())
        return std::nullopt;
    return std::string(m["next_cursor"].GetString(), m["next_cursor"].GetStringLength());
}

const rapidjson::Value* ApiAnswer::details() const {
    if (!doc.IsObject() || !doc.HasMember("error")) return nullptr;
    const auto& e = doc["error"];
    if (!e.IsObject() || !e.HasMember("details")) return nullptr;
    return &e["details"];
}

std::string describe(const ApiAnswer& a) {
    // The code, message and field are the server's words: defanged, and cut to a length a
    // person reads.
    std::string s = "the server answered " + std::to_string(a.status);
    if (!a.code.empty()) s += " " + defang(first_chars(a.code, 64));
    if (!a.message.empty()) s += ": " + defang(first_chars(a.message, 500));
    if (!a.field.empty()) s += " (" + defang(first_chars(a.field, 200)) + ")";
    return s;
}

namespace {

// A field read with clientfmt's checked getters (encoding.h); what they refuse is the server's
// fault: a CliError naming the field.
template <class Get>
auto answer_field(Get get) -> decltype(get()) {
    try {
        return get();
    } catch (const clientfmt::FormatError& e) {
        throw CliError(kExitFailure, std::string("the server's answer is malformed: ") + e.what());
    }
}

}  // namespace

std::string jstr(const rapidjson::Value& o, const char* name) {
    return answer_field([&] { return clientfmt::get_str(o, name); });
}

std::string_view jview(const rapidjson::Value& o, const char* name) {
    return answer_field([&] { return clientfmt::get_view(o, name); });
}

std::optional<std::string> jopt(const rapidjson::Value& o, const char* name) {
    return answer_field([&] { return clientfmt::get_opt_str(o, name); });
}

long long jint(const rapidjson::Value& o, const char* name) {
    return answer_field([&] { return clientfmt::get_int(o, name); });
}

const rapidjson::Value& jarr(const rapidjson::Value& o, const char* name) {
    return answer_field([&]() -> const rapidjson::Value& { return clientfmt::get_arr(o, name); });
}

const rapidjson::Value& jobj(const rapidjson::Value& o, const char* name) {
    return answer_field([&]() -> const rapidjson::Value& { return clientfmt::get_obj(o, name); });
}

Api::Api(Http& http, std::string server, const crypto::P256PrivateKey* key)
    : http_(http), server_(std::move(server)), key_(key) {}

Api::Api(Http& http, const Config& cfg, DeviceState& device, const crypto::P256PrivateKey& key)
    : http_(http), server_(device.server), key_(&key), cfg_(&cfg), device_(&device) {}

HttpRequest Api::request(const std::string& method, const std::string& path,
                         const std::string& body, const std::vector<std::string>& headers,
                         const CallOptions& opt) {
    HttpRequest req;
    req.method = method;
    req.url = server_ + path;
    req.body = body;
    req.timeout_seconds = opt.timeout_seconds;
    req.progress = opt.progress;
    req.wake_fd = opt.wake_fd;
    req.headers = headers;
    if (!body.empty() || method == "POST" || method == "PUT" || method == "PATCH")
        req.headers.push_back("Content-Type: " + opt.content_type);
    bool with_token = opt.authenticated && device_;
    if (with_token) req.headers.push_back("Authorization: DPoP " + device_->access_token);
    if (key_) {
        std::optional<std::string_view> ath;
        if (with_token) ath = device_->access_token;
        req.headers.push_back("DPoP: " + clientfmt::make_dpop_proof(*key_, method, req.url, ath));
    }
    return req;
}

ApiAnswer Api::answer(const std::string& method, const std::string& path, HttpResponse http,
                      const CallOptions& opt) {
    ApiAnswer a;
    a.http = std::move(http);
    a.status = a.http.status;
    a.raw = std::move(a.http.body);  // a blob's 4 MiB or a page's 4 MB, never copied
    bool json_body = a.http.header("content-type").rfind("application/json", 0) == 0;
    if (json_body) log_answer(method, path, a.status, a.raw);
    if ((a.ok() && opt.raw) || !json_body) {
        if (!a.ok() && !json_body) a.message = a.raw.substr(0, 200);
        return a;
    }
    try {
        a.doc = json::parse_strict_any(a.raw);
    } catch (const std::exception& e) {
        throw CliError(kExitFailure,
                       "the server's answer is not valid JSON: " + std::string(e.what()));
    }
    if (!a.ok() && a.doc.IsObject() && a.doc.HasMember("error") && a.doc["error"].IsObject()) {
        const auto& e = a.doc["error"];
        if (auto c = jopt(e, "code")) a.code = *c;
        if (auto m = jopt(e, "message")) a.message = *m;
        if (auto f = jopt(e, "field")) a.field = *f;
    }
    return a;
}

ApiAnswer Api::send_once(const std::string& method, const std::string& path,
                         const std::string& body, const std::vector<std::string>& headers,
                         const CallOptions& opt) {
    return answer(method, path, http_.send(request(method, path, body, headers, opt)), opt);
}

void Api::start(const std::string& method, const std::string& path, std::string body,
                std::vector<std::string> headers, CallOptions opt,
                std::function<void(ApiAnswer&)> done) {
    if (opt.authenticated && device_) ensure_fresh_token();
    // The body is shared by the transfer and the retry below, never copied.
    auto shared = std::make_shared<const std::string>(std::move(body));
    HttpRequest req = request(method, path, "", headers, opt);
    // request() named the content type for POST, PUT and PATCH; a body on another method too.
    if (!shared->empty() && method != "POST" && method != "PUT" && method != "PATCH")
        req.headers.push_back("Content-Type: " + opt.content_type);
    req.shared_body = shared;
    auto again = [this, method, path, body = shared, headers = std::move(headers), opt,
                  done = std::move(done)](HttpResponse* r, const HttpError* err) {
        ApiAnswer a;
        if (r) a = answer(method, path, std::move(*r), opt);
        bool transient = transient_status(a.status);
        bool expired = a.status == 401 && opt.authenticated && device_;
        if ((err && !err->aborted && !err->too_large && !err->untrusted) || transient || expired) {
            ApiAnswer b = call(method, path, *body, headers, opt);  // retried as call retries
            return done(b);
        }
        if (err && err->too_large) throw CliError(kExitFailure, server_ + ": " + err->what());
        if (err && err->untrusted) throw CliError(kExitUnreachable, server_ + ": " + err->what());
        if (err) throw *err;
        done(a);
    };
    http_.start(std::move(req), std::move(again));
}

ApiAnswer Api::call(const std::string& method, const std::string& path, const std::string& body,
                    const std::vector<std::string>& headers, const CallOptions& opt) {
    bool refreshed = false;
    for (int attempt = 1;; ++attempt) {
        if (opt.authenticated && device_) ensure_fresh_token();
        ApiAnswer a;
        try {
            a = send_once(method, path, body, headers, opt);
        } catch (const HttpError& e) {
            if (e.aborted) throw;
            if (e.too_large) throw CliError(kExitFailure, server_ + ": " + e.what());
            if (e.untrusted) throw CliError(kExitUnreachable, server_ + ": " + e.what());
            if (!opt.retry || attempt >= kMaxAttempts)
                throw CliError(kExitUnreachable, "cannot reach " + server_ + ": " + e.what());
            sleep_s(0.5 * (1 << (attempt - 1)));
            continue;
        }
        if (a.status == 401 && opt.authenticated && device_) {
            if (a.code == "device_revoked")
                throw CliError(kExitNeedLogin,
                               "this device was revoked; run `pouch logout --local` and then "
                               "`pouch login` to enrol it again");
            if ((a.code == "token_expired" || a.code == "unauthenticated") && !refreshed) {
                refreshed = true;
                refresh();
                continue;
            }
            if (a.code == "unauthenticated")
                throw CliError(kExitNeedLogin,
                               "the server no longer accepts this device's tokens; run "
                               "`pouch logout --local` and then `pouch login`");
        }
        bool transient = transient_status(a.status);
        if (transient && a.code != "slow_down" && opt.retry && attempt < kMaxAttempts) {
            sleep_s(retry_after(a, 1.0 * attempt));
            continue;
        }
        if (transient && a.status >= 502 && opt.retry)
            throw CliError(kExitUnreachable, server_ + " is unavailable: " + describe(a));
        return a;
    }
}

ApiAnswer Api::must(const std::string& method, const std::string& path, const std::string& body,
                    const std::vector<std::string>& headers, const CallOptions& opt) {
    ApiAnswer a = call(method, path, body, headers, opt);
    if (!a.ok())
        throw CliError(kExitFailure,
                       method + " " + path.substr(0, path.find('?')) + ": " + describe(a));
    return a;
}

void Api::list(const std::string& path, const std::string& query,
               const std::function<void(const rapidjson::Value&)>& each, int limit,
               const std::vector<std::string>& headers, const CallOptions& opt) {
    std::optional<std::string> cursor;
    while (true) {
        bool paged = !unpaged_.count(path);
        std::string q = path + "?" + query + (paged ? "limit=" + std::to_string(limit) : "");
        if (cursor) q += "&cursor=" + url_encode(*cursor);
        if (q.back() == '?' || q.back() == '&') q.pop_back();
        ApiAnswer a = call("GET", q, "", headers, opt);
        if (!a.ok() && paged && !cursor && a.code == "validation_failed" && a.field == "?limit") {
            unpaged_.insert(path);  // a server from before list paging (decisions §13)
            continue;
        }
        if (!a.ok()) throw CliError(kExitFailure, "GET " + path + ": " + describe(a));
        const auto& items = jarr(a.data(), "items");
        for (const auto& it : items.GetArray()) each(it);
        cursor = a.next_cursor();
        if (!cursor) return;
    }
}

void Api::list_roster(const std::function<void(const rapidjson::Value&)>& each,
                      const std::vector<std::string>& headers, const CallOptions& opt) {
    std::optional<std::string> cursor;
    while (true) {
        std::string q = "/v1/account/roster?limit=1000";
        if (cursor)
            q += std::string(roster_uses_after_ ? "&after=" : "&cursor=") + url_encode(*cursor);
        ApiAnswer a = call("GET", q, "", headers, opt);
        if (!a.ok() && cursor && !roster_uses_after_ && a.code == "validation_failed" &&
            a.field == "?cursor") {
            roster_uses_after_ = true;  // a server from before list cursors (decisions §13)
            continue;
        }
        if (!a.ok()) throw CliError(kExitFailure, "GET /v1/account/roster: " + describe(a));
        const auto& items = jarr(a.data(), "items");
        for (const auto& it : items.GetArray()) each(it);
        cursor = a.next_cursor();
        if (!cursor || items.Empty()) return;
    }
}

void Api::ensure_fresh_token() {
    if (device_->access_expires_at - 60 > now_s()) return;
    refresh();
}

void Api::refresh() {
    FileLock lock(cfg_->path("lock"));
    // Another pouch process may have refreshed meanwhile: its tokens are the ones to use,
    // and our refresh token is already spent.
    DeviceState on_disk = cfg_->load_device();
    if (on_disk.refresh_token != device_->refresh_token) {
        *device_ = on_disk;
        if (device_->access_expires_at - 60 > now_s()) return;
    }
    json::Out o;
    o.kv("refresh_token", device_->refresh_token);
    CallOptions opt;
    opt.authenticated = false;
    ApiAnswer a = send_once("POST", "/v1/cli-auth/refresh", o.done(), {}, opt);
    for (int attempt = 1; (a.status == 429 || a.status >= 502) && attempt < kMaxAttempts;
         ++attempt) {
        sleep_s(retry_after(a, attempt));
        a = send_once("POST", "/v1/cli-auth/refresh", o.done(), {}, opt);
    }
    if (a.status == 400 && a.code == "invalid_grant")
        throw CliError(kExitNeedLogin,
                       "this device's session has ended (its refresh token was already used, or "
                       "it expired; a reused refresh token revokes every token of the device). "
                       "Run `pouch logout --local` and then `pouch login`");
    if (a.status == 401 && a.code == "device_revoked")
        throw CliError(kExitNeedLogin,
                       "this device was revoked; run `pouch logout --local` and then "
                       "`pouch login` to enrol it again");
    if (!a.ok())
        throw CliError(a.status >= 500 ? kExitUnreachable : kExitFailure,
                       "cannot refresh the access token: " + describe(a));
    const auto& d = a.data();
    device_->access_token = jstr(d, "access_token");
    device_->refresh_token = jstr(d, "refresh_token");
    device_->access_expires_at = now_s() + jint(d, "expires_in");
    cfg_->save_device(*device_);
}

}  // namespace pouch::cli
