// s3_store.cpp -- see s3_store.h.
#include "common/storage/s3_store.h"

#include <curl/curl.h>
#include <strings.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <exception>
#include <stdexcept>

#include "common/storage/presign.h"
#include "common/types/uuid.h"

namespace pouch::storage {

namespace {

// One easy handle per thread: libcurl keeps its connection to the store open between requests.
struct CurlHandle {
    CURL* h = curl_easy_init();
    ~CurlHandle() {
        if (h) curl_easy_cleanup(h);
    }
};

CURL* thread_handle() {
    thread_local CurlHandle c;
    if (!c.h) throw std::runtime_error("s3: curl_easy_init failed");
    curl_easy_reset(c.h);
    return c.h;
}

struct HeaderList {
    curl_slist* l = nullptr;
    ~HeaderList() { curl_slist_free_all(l); }
    void add(const char* s) {
        curl_slist* n = curl_slist_append(l, s);
        if (!n) throw std::bad_alloc();
        l = n;
    }
};

struct File {
    FILE* f = nullptr;
    ~File() {
        if (f) std::fclose(f);
    }
};

// A PUT's body read from memory (CURLOPT_READFUNCTION); seekable, should curl resend it.
struct MemoryBody {
    std::string_view bytes;
    size_t at = 0;
};

size_t read_memory(char* p, size_t size, size_t n, void* user) {
    auto* b = static_cast<MemoryBody*>(user);
    size_t len = std::min(size * n, b->bytes.size() - b->at);
    std::memcpy(p, b->bytes.data() + b->at, len);
    b->at += len;
    return len;
}

int seek_memory(void* user, curl_off_t offset, int origin) {
    auto* b = static_cast<MemoryBody*>(user);
    if (origin != SEEK_SET || offset < 0 || static_cast<size_t>(offset) > b->bytes.size())
        return CURL_SEEKFUNC_CANTSEEK;
    b->at = static_cast<size_t>(offset);
    return CURL_SEEKFUNC_OK;
}

// A PUT's body pulled from an UploadSource while it arrives. Its exception aborts the transfer
// (curl closes the connection before the last byte, so the store keeps nothing) and is rethrown
// once curl has returned; so does a source that ends early. It never gives curl more than
// `size` bytes.
struct StreamBody {
    UploadSource* source = nullptr;
    long long size = 0;
    long long given = 0;
    std::exception_ptr failed;
};

size_t read_stream(char* p, size_t size, size_t n, void* user) {
    auto* b = static_cast<StreamBody*>(user);
    try {
        size_t want = std::min<size_t>(size * n, static_cast<size_t>(b->size - b->given));
        if (want == 0) return 0;
        size_t got = b->source->read(p, want);
        if (got == 0 || got > want)
            throw std::logic_error("s3: the streamed body ended at " + std::to_string(b->given) +
                                   " of " + std::to_string(b->size) + " bytes");
        b->given += static_cast<long long>(got);
        return got;
    } catch (...) {
        b->failed = std::current_exception();
        return CURL_READFUNC_ABORT;
    }
}

int seek_stream(void* user, curl_off_t offset, int origin) {
    auto* b = static_cast<StreamBody*>(user);
    if (origin != SEEK_SET || offset < 0 || offset > b->given) return CURL_SEEKFUNC_CANTSEEK;
    try {
        if (!b->source->rewind(offset)) return CURL_SEEKFUNC_CANTSEEK;
    } catch (...) {
        return CURL_SEEKFUNC_CANTSEEK;
    }
    b->given = offset;
    return CURL_SEEKFUNC_OK;
}

struct Answer {
    long status = 0;
    std::string body;  // the first 4 MiB (a page of 1,000 keys is ~300 KiB)
    std::string etag;
    curl_off_t length = -1;
};

size_t collect_body(char* p, size_t size, size_t n, void* user) {
    auto* a = static_cast<Answer*>(user);
    size_t len = size * n;
    if (a->body.size() < (4u << 20)) a->body.append(p, len);
    return len;
}

size_t collect_header(char* p, size_t size, size_t n, void* user) {
    auto* a = static_cast<Answer*>(user);
    size_t len = size * n;
    if (len > 5 && ::strncasecmp(p, "ETag:", 5) == 0) {
        std::string v(p + 5, len - 5);
        size_t b = v.find_first_not_of(" \t\"");
        size_t e = v.find_last_not_of(" \t\r\n\"");
        a->etag = b == std::string::npos ? "" : v.substr(b, e - b + 1);
    }
    return len;
}

enum class Method { get, head, put, del };

const char* method_name(Method m) {
    switch (m) {
        case Method::get:
            return "GET";
        case Method::head:
            return "HEAD";
        case Method::put:
            return "PUT";
        case Method::del:
            return "DELETE";
    }
    return "?";
}

// What a PUT sends: a file by path, bytes in memory, or `size` bytes pulled from `source`.
struct PutBody {
    std::string file;
    std::string_view bytes;
    UploadSource* source = nullptr;
    long long size = 0;
};

// One signed request. A transport failure or a 5xx throws Unavailable; any other status is
// the caller's to judge.
Answer perform(const S3Settings& s, Method m, const std::string& url, const PutBody& put = {}) {
    CURL* h = thread_handle();
    Answer a;
    HeaderList headers;
    // RGW checks the signature over the payload hash header, which curl does not add itself.
    headers.add("x-amz-content-sha256: UNSIGNED-PAYLOAD");
    File body;
    MemoryBody memory{.bytes = put.bytes};
    StreamBody stream{.source = put.source, .size = put.size, .given = 0, .failed = {}};
    const std::string sigv4 = "aws:amz:" + s.region + ":s3";
    curl_easy_setopt(h, CURLOPT_URL, url.c_str());
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_AWS_SIGV4, sigv4.c_str());
    curl_easy_setopt(h, CURLOPT_USERNAME, s.access_key.c_str());
    curl_easy_setopt(h, CURLOPT_PASSWORD, s.secret_key.c_str());
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, 3000L);
    // A store that stops answering mid-transfer: given up after 30 s below 1 KiB/s.
    curl_easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, 1024L);
    curl_easy_setopt(h, CURLOPT_LOW_SPEED_TIME, 30L);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, collect_body);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, &a);
    curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, collect_header);
    curl_easy_setopt(h, CURLOPT_HEADERDATA, &a);
    switch (m) {
        case Method::get:
            break;
        case Method::head:
            curl_easy_setopt(h, CURLOPT_NOBODY, 1L);
            break;
        case Method::del:
            curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, "DELETE");
            break;
        case Method::put: {
            long long size = static_cast<long long>(put.bytes.size());
            if (!put.file.empty()) {
                body.f = std::fopen(put.file.c_str(), "rbe");
                if (!body.f)
                    throw std::runtime_error("s3: open " + put.file + ": " + std::strerror(errno));
                std::fseek(body.f, 0, SEEK_END);
                size = std::ftell(body.f);
                std::rewind(body.f);
                curl_easy_setopt(h, CURLOPT_READDATA, body.f);
            } else if (put.source) {
                size = put.size;
                curl_easy_setopt(h, CURLOPT_READFUNCTION, read_stream);
                curl_easy_setopt(h, CURLOPT_READDATA, &stream);
                curl_easy_setopt(h, CURLOPT_SEEKFUNCTION, seek_stream);
                curl_easy_setopt(h, CURLOPT_SEEKDATA, &stream);
            } else {
                curl_easy_setopt(h, CURLOPT_READFUNCTION, read_memory);
                curl_easy_setopt(h, CURLOPT_READDATA, &memory);
                curl_easy_setopt(h, CURLOPT_SEEKFUNCTION, seek_memory);
                curl_easy_setopt(h, CURLOPT_SEEKDATA, &memory);
            }
            curl_easy_setopt(h, CURLOPT_UPLOAD, 1L);
            curl_easy_setopt(h, CURLOPT_INFILESIZE_LARGE, static_cast<curl_off_t>(size));
            headers.add("Content-Type: application/octet-stream");
            // No "Expect:" to drop the 100-continue wait: libcurl 7.88 signs the empty header it
            // then does not send, and the store refuses the signature (measured on RGW). RGW
            // answers 100 at once anyway.
            break;
        }
    }
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers.l);
    CURLcode rc = curl_easy_perform(h);
    // The source's own failure (the body refused) comes first: curl only saw an abort.
    if (stream.failed) std::rethrow_exception(stream.failed);
    if (rc != CURLE_OK)
        throw Unavailable(std::string("s3 ") + method_name(m) + " " + url + ": " +
                          curl_easy_strerror(rc));
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &a.status);
    curl_easy_getinfo(h, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &a.length);
    if (a.status >= 500)
        throw Unavailable(std::string("s3 ") + method_name(m) + " " + url + ": HTTP " +
                          std::to_string(a.status));
    return a;
}

[[noreturn]] void refused(Method m, const std::string& url, const Answer& a) {
    throw std::runtime_error(std::string("s3 ") + method_name(m) + " " + url + ": HTTP " +
                             std::to_string(a.status) + " " + a.body.substr(0, 300));
}

void put(const S3Settings& s, const std::string& url, const PutBody& body) {
    Answer a = perform(s, Method::put, url, body);
    if (a.status != 200) refused(Method::put, url, a);
}

// The text of the first <tag>…</tag> at or after `from` and before `end`, XML entities undone.
std::string element(const std::string& xml, const std::string& tag, size_t from, size_t end) {
    const std::string open = "<" + tag + ">", close = "</" + tag + ">";
    size_t b = xml.find(open, from);
    if (b == std::string::npos || b >= end) return {};
    b += open.size();
    size_t e = xml.find(close, b);
    if (e == std::string::npos || e > end) return {};
    std::string raw = xml.substr(b, e - b), out;
    for (size_t i = 0; i < raw.size(); ++i) {
        if (raw[i] != '&') {
            out += raw[i];
            continue;
        }
        static const std::pair<const char*, char> entities[] = {
            {"&amp;", '&'}, {"&lt;", '<'}, {"&gt;", '>'}, {"&quot;", '"'}, {"&apos;", '\''}};
        bool done = false;
        for (const auto& [name, c] : entities)
            if (raw.compare(i, std::strlen(name), name) == 0) {
                out += c;
                i += std::strlen(name) - 1;
                done = true;
                break;
            }
        if (!done) out += '&';
    }
    return out;
}

std::time_t parse_time(const std::string& iso) {
    std::tm tm{};
    if (std::sscanf(iso.c_str(), "%d-%d-%dT%d:%d:%d", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
                    &tm.tm_hour, &tm.tm_min, &tm.tm_sec) != 6)
        return 0;
    tm.tm_year -= 1900;
    tm.tm_mon -= 1;
    return ::timegm(&tm);
}

}  // namespace

ListPage parse_list_page(const std::string& xml) {
    ListPage p;
    size_t at = 0;
    for (;;) {
        size_t b = xml.find("<Contents>", at);
        if (b == std::string::npos) break;
        size_t e = xml.find("</Contents>", b);
        if (e == std::string::npos) break;
        std::string key = element(xml, "Key", b, e);
        size_t slash = key.find('/');
        if (slash != std::string::npos && is_uuid(key.substr(0, slash)) && slash + 1 < key.size() &&
            key.find('/', slash + 1) == std::string::npos)
            p.objects.push_back({key.substr(0, slash), key.substr(slash + 1),
                                 std::atoll(element(xml, "Size", b, e).c_str()),
                                 parse_time(element(xml, "LastModified", b, e))});
        at = e;
    }
    if (element(xml, "IsTruncated", 0, xml.size()) == "true")
        p.next_token = element(xml, "NextContinuationToken", 0, xml.size());
    return p;
}

S3BlobStore::S3BlobStore(std::string staging_root, S3Settings s)
    : BlobStore(std::move(staging_root)), s_(std::move(s)) {
    // Thread-safe in libcurl 7.84+, and the store is made once per process anyway.
    curl_global_init(CURL_GLOBAL_DEFAULT);
    size_t sep = s_.endpoint.find("://");
    if (sep == std::string::npos) throw std::invalid_argument("s3 endpoint without a scheme");
    scheme_ = s_.endpoint.substr(0, sep);
    authority_ = s_.endpoint.substr(sep + 3);
}

std::string S3BlobStore::describe() const {
    return "s3://" + s_.bucket + " at " + s_.endpoint;
}

std::string S3BlobStore::object_url(const std::string& account_id,
                                    const std::string& blob_id) const {
    return s_.endpoint + "/" + uri_encode(s_.bucket, false) + "/" +
           uri_encode(account_id + "/" + blob_id, true);
}

void S3BlobStore::upload(StagedBlob& staged, const std::string& account_id,
                         const std::string& blob_id) const {
    if (staged.in_memory())
        put(s_, object_url(account_id, blob_id),
            {.file = {}, .bytes = staged.bytes(), .source = nullptr, .size = 0});
    else
        put_file(staged.path(), account_id, blob_id);
}

void S3BlobStore::upload_streamed(UploadSource& source, long long size,
                                  const std::string& account_id, const std::string& blob_id) const {
    put(s_, object_url(account_id, blob_id),
        {.file = {}, .bytes = {}, .source = &source, .size = size});
}

void S3BlobStore::place(StagedBlob& staged, const std::string& account_id,
                        const std::string& blob_id, bool recheck) const {
    if (!recheck) return;
    auto info = stat(account_id, blob_id);
    if (!info || info->size != staged.size()) upload(staged, account_id, blob_id);
}

void S3BlobStore::put_file(const std::string& path, const std::string& account_id,
                           const std::string& blob_id) const {
    put(s_, object_url(account_id, blob_id),
        {.file = path, .bytes = {}, .source = nullptr, .size = 0});
}

std::optional<ObjectInfo> S3BlobStore::stat(const std::string& account_id,
                                            const std::string& blob_id) const {
    std::string url = object_url(account_id, blob_id);
    Answer a = perform(s_, Method::head, url);
    if (a.status == 404) return std::nullopt;
    if (a.status != 200) refused(Method::head, url, a);
    return ObjectInfo{.size = a.length, .etag = a.etag};
}

std::string S3BlobStore::presigned_path(const std::string& account_id, const std::string& blob_id,
                                        std::time_t now, int expires_seconds) const {
    const std::string path =
        "/" + uri_encode(s_.bucket, false) + "/" + uri_encode(account_id + "/" + blob_id, true);
    Presigned p = presign({.method = "GET",
                           .host = authority_,
                           .path = path,
                           .region = s_.region,
                           .access_key = s_.access_key,
                           .secret_key = s_.secret_key,
                           .now = now,
                           .expires_seconds = expires_seconds});
    return path + "?" + p.query;
}

std::string S3BlobStore::download_uri(const std::string& account_id, const std::string& blob_id,
                                      std::time_t now) const {
    return std::string(kS3InternalLocation) + scheme_ + "/" + authority_ +
           presigned_path(account_id, blob_id, now, kPresignSeconds);
}

std::string S3BlobStore::presigned_url(const std::string& account_id, const std::string& blob_id,
                                       std::time_t now, int expires_seconds) const {
    return s_.endpoint + presigned_path(account_id, blob_id, now, expires_seconds);
}

void S3BlobStore::list(const std::function<void(const std::vector<StoredObject>&)>& page) const {
    std::string token;
    do {
        // Parameters in name order and encoded: the canonical query libcurl signs is the URL's.
        std::string url = s_.endpoint + "/" + uri_encode(s_.bucket, false) + "?";
        if (!token.empty()) url += "continuation-token=" + uri_encode(token, false) + "&";
        url += "list-type=2&max-keys=1000";
        Answer a = perform(s_, Method::get, url);
        if (a.status != 200) refused(Method::get, url, a);
        ListPage p = parse_list_page(a.body);
        if (!p.objects.empty()) page(p.objects);
        token = p.next_token;
    } while (!token.empty());
}

void S3BlobStore::remove(const std::string& account_id, const std::string& blob_id) const {
    std::string url = object_url(account_id, blob_id);
    Answer a = perform(s_, Method::del, url);
    if (a.status != 204 && a.status != 200 && a.status != 404) refused(Method::del, url, a);
}

}  // namespace pouch::storage
