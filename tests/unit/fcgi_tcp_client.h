// fcgi_tcp_client.h -- a minimal FastCGI client over TCP for the tests of handler hosts
// (POUCH_LISTEN, issue 18): one request per connection, as nginx sends them with
// fastcgi_keep_conn off; the reply's CGI header block, body and status.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>
#include <utility>
#include <vector>

namespace pouch::testing {

struct FcgiReply {
    bool answered = false;  // a FastCGI END_REQUEST arrived
    std::string head;
    std::string body;
    int status = 0;
};

using FcgiParams = std::vector<std::pair<std::string, std::string>>;

inline std::string fcgi_record(unsigned char type, const std::string& content) {
    std::string r{'\x01',
                  static_cast<char>(type),
                  '\x00',
                  '\x01',
                  static_cast<char>((content.size() >> 8) & 0xff),
                  static_cast<char>(content.size() & 0xff),
                  '\x00',
                  '\x00'};
    return r + content;
}

inline void fcgi_length(std::string& out, size_t n) {
    if (n < 128) {
        out.push_back(static_cast<char>(n));
        return;
    }
    for (int shift : {24, 16, 8, 0})
        out.push_back(static_cast<char>(((n >> shift) & 0xff) | (shift == 24 ? 0x80 : 0)));
}

// Connects to 127.0.0.1:port; an unanswered or refused request gives answered == false.
inline FcgiReply fcgi_tcp_get(int port, const std::string& uri) {
    FcgiReply reply;
    int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<uint16_t>(port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
        ::close(fd);
        return reply;
    }
    std::string params;
    for (const auto& [k, v] : FcgiParams{{"REQUEST_METHOD", "GET"}, {"REQUEST_URI", uri}}) {
        fcgi_length(params, k.size());
        fcgi_length(params, v.size());
        params += k + v;
    }
    std::string out = fcgi_record(1, std::string("\x00\x01\x00\x00\x00\x00\x00\x00", 8)) +
                      fcgi_record(4, params) + fcgi_record(4, "") + fcgi_record(5, "");
    (void)!::write(fd, out.data(), out.size());
    std::string in;
    char buf[65536];
    ssize_t n;
    while ((n = ::read(fd, buf, sizeof buf)) > 0) in.append(buf, static_cast<size_t>(n));
    ::close(fd);
    std::string stdout_bytes;
    for (size_t i = 0; i + 8 <= in.size();) {
        unsigned char type = static_cast<unsigned char>(in[i + 1]);
        size_t len =
            (static_cast<unsigned char>(in[i + 4]) << 8) | static_cast<unsigned char>(in[i + 5]);
        size_t pad = static_cast<unsigned char>(in[i + 6]);
        if (type == 6) stdout_bytes += in.substr(i + 8, len);
        if (type == 3) reply.answered = true;
        i += 8 + len + pad;
    }
    size_t split = stdout_bytes.find("\r\n\r\n");
    reply.head = stdout_bytes.substr(0, split);
    reply.body = split == std::string::npos ? "" : stdout_bytes.substr(split + 4);
    if (reply.head.rfind("Status: ", 0) == 0) reply.status = std::stoi(reply.head.substr(8, 3));
    return reply;
}

}  // namespace pouch::testing
