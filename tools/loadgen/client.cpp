// client.cpp -- the loopback HTTP/1.1 client, DPoP proofs and percentiles of pouch-loadgen
// (see client.h). Blocking sockets: each mode gives a connection its own thread.
#include "tools/loadgen/client.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <ctime>

#include "common/crypto/b64url.h"
#include "common/crypto/es256.h"
#include "common/crypto/hash.h"
#include "common/crypto/random.h"
#include "common/json/jcs.h"
#include "common/json/parse.h"
#include "tools/pouchctl/client_jws.h"

namespace loadgen {

using pouch::crypto::b64url_encode;

int connect_to(int port) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) return -1;
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<uint16_t>(port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
        close(fd);
        return -1;
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return fd;
}

int roundtrip(int fd, const std::string& req, std::string& body) {
    size_t off = 0;
    while (off < req.size()) {
        ssize_t n = send(fd, req.data() + off, req.size() - off, MSG_NOSIGNAL);
        if (n <= 0) return -1;
        off += static_cast<size_t>(n);
    }
    std::string buf;
    char tmp[16384];
    size_t head_end = std::string::npos, need = 0;
    for (;;) {
        ssize_t n = recv(fd, tmp, sizeof tmp, 0);
        if (n <= 0) return -1;
        buf.append(tmp, static_cast<size_t>(n));
        if (head_end == std::string::npos) {
            head_end = buf.find("\r\n\r\n");
            if (head_end == std::string::npos) continue;
            std::string head = buf.substr(0, head_end);
            std::transform(head.begin(), head.end(), head.begin(), ::tolower);
            auto cl = head.find("content-length:");
            if (cl == std::string::npos) return -1;  // nginx answers with a length here
            need = head_end + 4 + std::strtoul(head.c_str() + cl + 15, nullptr, 10);
        }
        if (buf.size() >= need) break;
    }
    body = buf.substr(head_end + 4);
    return std::atoi(buf.c_str() + 9);
}

double now_ms() {
    return std::chrono::duration<double, std::milli>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

std::string dpop(const pouchctl::SignKey& k, const std::string& method, const std::string& url,
                 const std::string& token) {
    std::string header =
        R"({"typ":"dpop+jwt","alg":"ES256","jwk":{"kty":"EC","crv":"P-256","x":")" + k.x() +
        R"(","y":")" + k.y() + R"("}})";
    std::string claims = R"({"jti":")" + b64url_encode(pouch::crypto::random_bytes(16)) +
                         R"(","htm":")" + method + R"(","htu":")" + url + R"(","iat":)" +
                         std::to_string(std::time(nullptr));
    if (!token.empty())
        claims += R"(,"ath":")" + b64url_encode(pouch::crypto::sha256(token)) + R"(")";
    claims += "}";
    return pouchctl::jws_compact(k, header, claims);
}

namespace {

std::string uuid4() {
    std::string r = pouch::crypto::to_hex(pouch::crypto::random_bytes(16));
    return r.substr(0, 8) + "-" + r.substr(8, 4) + "-4" + r.substr(13, 3) + "-8" + r.substr(17, 3) +
           "-" + r.substr(20, 12);
}

}  // namespace

std::string cli_commit_request(const pouchctl::SignKey& k, const std::string& url,
                               const std::string& host, const std::string& access,
                               const std::string& pouch, const std::string& epoch,
                               const std::string& member, int batch, std::string* art,
                               std::string* rev) {
    std::string path = "/v1/pouches/" + pouch + "/operations";
    std::string body = R"({"operation_id":")" + uuid4() + R"(","epoch":")" + epoch + R"(","ops":[)";
    for (int i = 0; i < batch; ++i) {
        if (i) body += ',';
        std::string a = uuid4(), r = uuid4();
        if (art) *art = a;
        if (rev) *rev = r;
        body += R"({"type":"put","artifact_id":")" + a + R"(","revision_id":")" + r +
                R"(","base_revision_id":null,"key_gen":1,"envelope":")" +
                b64url_encode(pouch::crypto::random_bytes(96)) +
                R"(","signature":"c2lnbmF0dXJl","signer_member_id":")" + member +
                R"(","blob_ids":[]})";
    }
    body += "]}";
    rapidjson::Document doc = pouch::json::parse_strict(body);
    std::string hash = b64url_encode(pouch::crypto::blake3_256(*pouch::json::jcs(doc)));
    std::string sig_header =
        R"({"alg":"ES256","kid":")" + pouch::crypto::jwk_thumbprint(k.x(), k.y()) + R"("})";
    std::string sig = pouchctl::jws_detached(k, sig_header, hash);
    return "POST " + path + " HTTP/1.1\r\nHost: " + host +
           "\r\nContent-Type: application/json\r\nAuthorization: DPoP " + access +
           "\r\nDPoP: " + dpop(k, "POST", url + path, access) + "\r\nService-Signature: " + sig +
           "\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
}

double percentile(const std::vector<double>& sorted, double p) {
    if (sorted.empty()) return -1;
    return sorted[std::min(sorted.size() - 1, static_cast<size_t>(p * sorted.size()))];
}

bool parse_url(const std::string& url, std::string& host, int& port) {
    if (url.rfind("http://127.0.0.1:", 0) != 0) return false;
    host = url.substr(7);
    port = std::atoi(host.c_str() + host.find(':') + 1);
    return port > 0 && port < 65536;
}

}  // namespace loadgen
