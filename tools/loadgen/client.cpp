// client.cpp -- the loopback HTTP/1.1 client, commit requests, options and percentiles of
// pouch-loadgen (see client.h). Blocking sockets: each mode gives a connection its own thread.
#include "tools/loadgen/client.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>

#include "common/clientfmt/proofs.h"
#include "common/crypto/b64url.h"
#include "common/crypto/random.h"

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

std::string put_ops_body(const std::string& epoch, const std::string& member, int batch,
                         std::string* art, std::string* rev) {
    using pouch::crypto::uuid_v4;
    std::string body =
        R"({"operation_id":")" + uuid_v4() + R"(","epoch":")" + epoch + R"(","ops":[)";
    for (int i = 0; i < batch; ++i) {
        if (i) body += ',';
        std::string a = uuid_v4(), r = uuid_v4();
        if (art) *art = a;
        if (rev) *rev = r;
        body += R"({"type":"put","artifact_id":")" + a + R"(","revision_id":")" + r +
                R"(","base_revision_id":null,"key_gen":1,"envelope":")" +
                b64url_encode(pouch::crypto::random_bytes(96)) +
                R"(","signature":"c2lnbmF0dXJl","signer_member_id":")" + member +
                R"(","blob_ids":[]})";
    }
    return body + "]}";
}

std::string cli_commit_request(const pouchctl::SignKey& k, const std::string& url,
                               const std::string& host, const std::string& access,
                               const std::string& pouch, const std::string& epoch,
                               const std::string& member, int batch, std::string* art,
                               std::string* rev) {
    std::string path = "/v1/pouches/" + pouch + "/operations";
    std::string body = put_ops_body(epoch, member, batch, art, rev);
    return "POST " + path + " HTTP/1.1\r\nHost: " + host +
           "\r\nContent-Type: application/json\r\nAuthorization: DPoP " + access +
           "\r\nDPoP: " + pouch::clientfmt::make_dpop_proof(k, "POST", url + path, access) +
           "\r\nService-Signature: " + pouch::clientfmt::make_service_signature(k, body) +
           "\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
}

double percentile(const std::vector<double>& sorted, double p) {
    if (sorted.empty()) return -1;
    return sorted[std::min(sorted.size() - 1, static_cast<size_t>(p * sorted.size()))];
}

std::map<std::string, std::string> parse_opts(int argc, char** argv,
                                              std::map<std::string, std::string> defaults) {
    for (int i = 0; i + 1 < argc; i += 2) defaults[argv[i]] = argv[i + 1];
    return defaults;
}

std::vector<PouchLine> read_pouches(const std::string& path) {
    std::vector<PouchLine> out;
    std::ifstream f(path);
    PouchLine p;
    while (f >> p.id >> p.epoch >> p.after) out.push_back(p);
    return out;
}

bool parse_url(const std::string& url, std::string& host, int& port) {
    if (url.rfind("http://127.0.0.1:", 0) != 0) return false;
    host = url.substr(7);
    port = std::atoi(host.c_str() + host.find(':') + 1);
    return port > 0 && port < 65536;
}

}  // namespace loadgen
