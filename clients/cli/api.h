// api.h -- the CLI's view of the public HTTP API: DPoP-bound calls with the device's access
// token (refreshed transparently, under a lock shared with other `pouch` processes), retries
// of what is safe to retry (transport errors, 429, 502-504 with Retry-After), paging by
// meta.next_cursor, and the error envelope turned into CliErrors with documented exit codes.
#pragma once

#include <functional>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <rapidjson/document.h>

#include "clients/cli/config.h"
#include "clients/cli/http.h"

namespace pouch::cli {

struct ApiAnswer {
    long status = 0;
    std::string code, message;  // of a failure envelope
    std::string field;
    rapidjson::Document doc;  // the parsed envelope (empty for raw answers)
    std::string raw;          // the body as received
    HttpResponse http;        // status and headers (its body was moved into raw)

    bool ok() const { return status >= 200 && status < 300; }
    const rapidjson::Value& data() const;  // doc["data"]; throws if missing
    std::optional<std::string> next_cursor() const;
    const rapidjson::Value* details() const;  // error.details, if any
};

struct CallOptions {
    std::string content_type = "application/json";
    long timeout_seconds = 60;
    bool retry = true;          // retry transport errors, 429 and 5xx
    bool authenticated = true;  // send the access token (and refresh it)
    bool raw = false;           // do not parse the body as JSON on success
    std::function<bool(long long, long long, long long, long long)> progress;
    int wake_fd = -1;  // HttpRequest::wake_fd: readable ends the call at once (aborted)
};

class Api {
  public:
    // A client without a session (login): DPoP proofs are signed with `key` when given.
    Api(Http& http, std::string server, const crypto::P256PrivateKey* key = nullptr);
    // A client of the enrolled device; refreshed tokens are saved through cfg.
    Api(Http& http, const Config& cfg, DeviceState& device, const crypto::P256PrivateKey& key);

    const std::string& server() const { return server_; }

    // One call; `path` starts with /v1 and may carry a query. Failures of the session
    // (revoked, ended) throw CliError kExitNeedLogin; an unreachable server kExitUnreachable.
    // Other API errors come back in the answer for the caller to judge.
    ApiAnswer call(const std::string& method, const std::string& path, const std::string& body = "",
                   const std::vector<std::string>& headers = {}, const CallOptions& opt = {});

    // As call, in parallel with others (Http::start): `done` gets the answer when it comes.
    // An answer that call would retry (a transport failure, 401 of an expired token, 429,
    // 502-504) is asked again through call, there and then. wait_all() runs them to the end.
    void start(const std::string& method, const std::string& path, std::string body,
               std::vector<std::string> headers, CallOptions opt,
               std::function<void(ApiAnswer&)> done);
    void wait_all() { http_.wait_all(); }
    // Runs the calls in flight until at least one of them has ended (none: returns at once).
    void wait_one() { http_.wait_below(http_.in_flight()); }
    size_t in_flight() const { return http_.in_flight(); }
    void pump() { http_.pump(); }  // Http::pump
    void cancel_all() { http_.cancel_all(); }

    // As call, but any answer other than 2xx throws CliError describing it.
    ApiAnswer must(const std::string& method, const std::string& path, const std::string& body = "",
                   const std::vector<std::string>& headers = {}, const CallOptions& opt = {});

    // Every item of a paged list (follows meta.next_cursor until null). `query` holds the
    // list's own parameters ("member_id=..&"), without limit/cursor. Each item is passed to
    // `each` as the JSON value inside its page.
    // `headers` and `opt` as for call (pouch-testweb pages as a web caller). A server that
    // does not page a list yet refuses `limit` (today's /v1/pouches, /v1/devices,
    // key-envelopes): the list is then read again without it, and answers in one page.
    void list(const std::string& path, const std::string& query,
              const std::function<void(const rapidjson::Value&)>& each, int limit = 1000,
              const std::vector<std::string>& headers = {}, const CallOptions& opt = {});

    // The roster's items in index order. Today's server pages the roster with `after=`;
    // the hardened one with `cursor=` (both follow meta.next_cursor): this tries `cursor`
    // and falls back to `after` when the server refuses it.
    void list_roster(const std::function<void(const rapidjson::Value&)>& each,
                     const std::vector<std::string>& headers = {}, const CallOptions& opt = {});

    // Refreshes the access token now (under the config lock).
    void refresh();

  private:
    ApiAnswer send_once(const std::string& method, const std::string& path, const std::string& body,
                        const std::vector<std::string>& headers, const CallOptions& opt);
    HttpRequest request(const std::string& method, const std::string& path, const std::string& body,
                        const std::vector<std::string>& headers, const CallOptions& opt);
    ApiAnswer answer(const std::string& method, const std::string& path, HttpResponse http,
                     const CallOptions& opt);
    void ensure_fresh_token();
    Http& http_;
    std::string server_;
    const crypto::P256PrivateKey* key_ = nullptr;
    const Config* cfg_ = nullptr;
    DeviceState* device_ = nullptr;
    bool roster_uses_after_ = false;
    std::set<std::string> unpaged_;  // list paths whose server refused `limit`
};

// "code: message" of a failed answer, for messages to people.
std::string describe(const ApiAnswer& a);

// Reading fields of answer data (the server's output; a missing or mistyped field is a
// CliError, never RapidJSON's assert on a hostile answer: read members only through these).
std::string jstr(const rapidjson::Value& o, const char* name);
// jstr without the copy: a view of the string inside `o`'s document (the same refusals).
std::string_view jview(const rapidjson::Value& o, const char* name);
std::optional<std::string> jopt(const rapidjson::Value& o, const char* name);
long long jint(const rapidjson::Value& o, const char* name);
const rapidjson::Value& jarr(const rapidjson::Value& o, const char* name);
const rapidjson::Value& jobj(const rapidjson::Value& o, const char* name);

}  // namespace pouch::cli
