// http.cpp -- libcurl easy-handle wrapper (http.h). curl_global_init runs once; the handle
// is reset between requests so no option leaks from one to the next.
#include "clients/cli/http.h"

#include <curl/curl.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <vector>

namespace pouch::cli {

namespace {

struct SlistFree {
    void operator()(curl_slist* l) const { curl_slist_free_all(l); }
};

// Appends to the body; a body that would pass kMaxAnswerBytes ends the transfer (a short count
// makes curl stop with CURLE_WRITE_ERROR).
size_t on_body(char* data, size_t size, size_t n, void* user) {
    auto* body = static_cast<std::string*>(user);
    if (size * n > kMaxAnswerBytes - body->size()) return 0;
    body->append(data, size * n);
    return size * n;
}

size_t on_header(char* data, size_t size, size_t n, void* user) {
    auto* resp = static_cast<HttpResponse*>(user);
    auto* headers = &resp->headers;
    std::string line(data, size * n);
    auto colon = line.find(':');
    if (line.rfind("HTTP/", 0) == 0) headers->clear();  // a new response (after 100 Continue)
    if (colon == std::string::npos) return size * n;
    std::string name = line.substr(0, colon);
    std::transform(name.begin(), name.end(), name.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    std::string value = line.substr(colon + 1);
    auto not_space = [](unsigned char c) { return !std::isspace(c); };
    value.erase(value.begin(), std::find_if(value.begin(), value.end(), not_space));
    value.erase(std::find_if(value.rbegin(), value.rend(), not_space).base(), value.end());
    // The body's room at once (a page of 4 MiB, a chunk), not grown by doubling copies.
    if (name == "content-length" && resp->body.empty()) {
        char* end = nullptr;
        unsigned long long len = std::strtoull(value.c_str(), &end, 10);
        if (end && *end == '\0' && len > 0 && len <= kMaxAnswerBytes)
            resp->body.reserve(static_cast<size_t>(len));
    }
    (*headers)[name] = value;
    return size * n;
}

int on_progress(void* user, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal,
                curl_off_t ulnow) {
    const auto* req = static_cast<const HttpRequest*>(user);
    if (!req->progress) return 0;
    return req->progress(ulnow, ultotal, dlnow, dltotal) ? 0 : 1;
}

}  // namespace

// One transfer's request, answer and libcurl handles: a request's body and headers must live
// as long as its transfer.
struct HttpTransfer {
    HttpRequest req;
    HttpResponse resp;
    std::unique_ptr<curl_slist, SlistFree> headers;
    Http::Done done;
    char error[CURL_ERROR_SIZE] = {};  // libcurl's detail of a failure (CURLOPT_ERRORBUFFER)
};

namespace {

void configure(CURL* c, HttpTransfer& t, const std::string& ca_file) {
    curl_easy_reset(c);
    const HttpRequest& req = t.req;
    std::unique_ptr<curl_slist, SlistFree> headers;
    for (const auto& h : req.headers) {
        curl_slist* next = curl_slist_append(headers.get(), h.c_str());
        if (!next) throw HttpError("out of memory", false);
        (void)headers.release();
        headers.reset(next);
    }
    // "Expect: 100-continue" would add a round trip before every upload.
    curl_slist* next = curl_slist_append(headers.get(), "Expect:");
    if (!next) throw HttpError("out of memory", false);
    (void)headers.release();
    headers.reset(next);
    t.headers = std::move(headers);

    curl_easy_setopt(c, CURLOPT_URL, req.url.c_str());
    curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, req.method.c_str());
    if (req.method == "GET") curl_easy_setopt(c, CURLOPT_HTTPGET, 1L);
    const std::string& body = req.shared_body ? *req.shared_body : req.body;
    if (!body.empty() || req.method == "POST" || req.method == "PUT" || req.method == "PATCH") {
        curl_easy_setopt(c, CURLOPT_POSTFIELDS, body.data());
        curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
        // libcurl copies a body to the socket through its upload buffer, 64 KiB by default: a
        // push of 1 GiB made 21,000 send calls. 1 MiB pieces (libcurl's most is 2 MiB).
        if (body.size() > 64 * 1024) curl_easy_setopt(c, CURLOPT_UPLOAD_BUFFERSIZE, 1024L * 1024);
    }
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, t.headers.get());
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &t.resp.body);
    curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(c, CURLOPT_HEADERDATA, &t.resp);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, req.timeout_seconds);
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, 10L);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(c, CURLOPT_USERAGENT, "pouch-cli");
    curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, on_progress);
    curl_easy_setopt(c, CURLOPT_XFERINFODATA, &t.req);
    curl_easy_setopt(c, CURLOPT_PRIVATE, &t);
    curl_easy_setopt(c, CURLOPT_ERRORBUFFER, t.error);
    // A pinned CA file (--ca-file) is the only trust anchor: the system's store is not read.
    if (!ca_file.empty()) {
        curl_easy_setopt(c, CURLOPT_CAINFO, ca_file.c_str());
        curl_easy_setopt(c, CURLOPT_CAPATH, nullptr);
    }
}

// The answer of an ended transfer, or its failure as an HttpError. A certificate the client
// does not trust, or a CA file it cannot read, is said plainly and not retried.
std::optional<HttpError> outcome(CURL* c, CURLcode rc, HttpTransfer& t,
                                 const std::string& ca_file) {
    HttpResponse& resp = t.resp;
    if (rc == CURLE_WRITE_ERROR)
        return HttpError("the server's answer is larger than " +
                             std::to_string(kMaxAnswerBytes >> 20) + " MiB; it was not read",
                         false, true);
    std::string detail = t.error[0] ? std::string(t.error) : curl_easy_strerror(rc);
    if (rc == CURLE_PEER_FAILED_VERIFICATION)
        return HttpError("the server's TLS certificate is not trusted (" + detail + "); " +
                             (ca_file.empty() ? std::string("if it is yours, pin it or its CA "
                                                            "with --ca-file PATH")
                                              : "it is not signed by " + ca_file),
                         false, false, true);
    if (rc == CURLE_SSL_CACERT_BADFILE)
        return HttpError(
            "cannot use the CA file " + (ca_file.empty() ? "" : ca_file + " ") + "(" + detail + ")",
            false, false, true);
    if (rc == CURLE_SSL_CONNECT_ERROR)
        return HttpError("TLS handshake failed (" + detail + ")", false);
    if (rc != CURLE_OK)
        return HttpError(std::string(curl_easy_strerror(rc)), rc == CURLE_ABORTED_BY_CALLBACK);
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &resp.status);
    return std::nullopt;
}

}  // namespace

struct Http::Impl {
    CURL* curl = nullptr;     // send()'s handle, kept alive in `single`
    CURLM* single = nullptr;  // send()'s multi: its connections stay open between calls
    CURLM* multi = nullptr;   // start()'s transfers
    std::vector<CURL*> idle;  // start()'s handles between transfers
    std::string ca_file;      // set_ca_file(): the only trust anchor when not empty
    std::map<CURL*, std::unique_ptr<HttpTransfer>> running;
};

std::string HttpResponse::header(const std::string& lower_name) const {
    auto it = headers.find(lower_name);
    return it == headers.end() ? std::string() : it->second;
}

Http::Http() : impl_(std::make_unique<Impl>()) {
    static std::once_flag once;
    std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
    impl_->curl = curl_easy_init();
    impl_->single = curl_multi_init();
    impl_->multi = curl_multi_init();
    if (!impl_->curl || !impl_->single || !impl_->multi)
        throw HttpError("cannot initialise libcurl", false);
    curl_multi_setopt(impl_->multi, CURLMOPT_MAX_HOST_CONNECTIONS, static_cast<long>(kMaxParallel));
}

Http::~Http() {
    cancel_all();
    for (CURL* c : impl_->idle) curl_easy_cleanup(c);
    curl_multi_cleanup(impl_->multi);
    curl_multi_cleanup(impl_->single);
    curl_easy_cleanup(impl_->curl);
}

void Http::set_ca_file(std::string path) {
    impl_->ca_file = std::move(path);
}

const std::string& Http::ca_file() const {
    return impl_->ca_file;
}

HttpResponse Http::send(const HttpRequest& req) {
    CURL* c = impl_->curl;
    HttpTransfer t;
    t.req = req;
    configure(c, t, impl_->ca_file);
    curl_multi_add_handle(impl_->single, c);
    struct Detach {
        CURLM* m;
        CURL* c;
        ~Detach() { curl_multi_remove_handle(m, c); }
    } detach{impl_->single, c};
    while (true) {
        int running = 0;
        curl_multi_perform(impl_->single, &running);
        int left = 0;
        while (CURLMsg* m = curl_multi_info_read(impl_->single, &left)) {
            if (m->msg != CURLMSG_DONE) continue;
            if (auto err = outcome(c, m->data.result, t, impl_->ca_file)) throw *err;
            return std::move(t.resp);
        }
        curl_waitfd wake{req.wake_fd, CURL_WAIT_POLLIN, 0};
        curl_multi_poll(impl_->single, req.wake_fd >= 0 ? &wake : nullptr, req.wake_fd >= 0 ? 1 : 0,
                        1000, nullptr);
        if (req.wake_fd >= 0 && (wake.revents & CURL_WAIT_POLLIN))
            throw HttpError("stopped: a local change", true);
    }
}

void Http::start(HttpRequest req, Done done) {
    wait_below(kMaxParallel);
    CURL* c = nullptr;
    if (!impl_->idle.empty()) {
        c = impl_->idle.back();
        impl_->idle.pop_back();
    } else {
        c = curl_easy_init();
        if (!c) throw HttpError("cannot initialise libcurl", false);
    }
    auto t = std::make_unique<HttpTransfer>();
    t->req = std::move(req);
    t->done = std::move(done);
    try {
        configure(c, *t, impl_->ca_file);
    } catch (...) {
        impl_->idle.push_back(c);
        throw;
    }
    curl_multi_add_handle(impl_->multi, c);
    impl_->running[c] = std::move(t);
}

size_t Http::in_flight() const {
    return impl_->running.size();
}

void Http::pump() {
    if (impl_->running.empty()) return;
    int still = 0;
    curl_multi_perform(impl_->multi, &still);  // ended transfers wait for wait_below()
}

void Http::wait_below(size_t n) {
    while (impl_->running.size() >= n && !impl_->running.empty()) {
        int still = 0;
        curl_multi_perform(impl_->multi, &still);
        int left = 0;
        while (CURLMsg* m = curl_multi_info_read(impl_->multi, &left)) {
            if (m->msg != CURLMSG_DONE) continue;
            CURL* c = m->easy_handle;
            CURLcode rc = m->data.result;
            curl_multi_remove_handle(impl_->multi, c);
            auto it = impl_->running.find(c);
            std::unique_ptr<HttpTransfer> t = std::move(it->second);
            impl_->running.erase(it);
            auto err = outcome(c, rc, *t, impl_->ca_file);
            impl_->idle.push_back(c);
            Done done = std::move(t->done);
            if (err)
                done(nullptr, &*err);
            else
                done(&t->resp, nullptr);
        }
        if (impl_->running.size() >= n && !impl_->running.empty())
            curl_multi_poll(impl_->multi, nullptr, 0, 1000, nullptr);
    }
}

void Http::cancel_all() {
    for (auto& [c, t] : impl_->running) {
        curl_multi_remove_handle(impl_->multi, c);
        impl_->idle.push_back(c);
    }
    impl_->running.clear();
}

std::string url_encode(const std::string& s) {
    static const char* hex = "0123456789ABCDEF";
    std::string out;
    for (unsigned char ch : s) {
        if (std::isalnum(ch) || ch == '-' || ch == '.' || ch == '_' || ch == '~') {
            out.push_back(static_cast<char>(ch));
        } else {
            out.push_back('%');
            out.push_back(hex[ch >> 4]);
            out.push_back(hex[ch & 15]);
        }
    }
    return out;
}

}  // namespace pouch::cli
