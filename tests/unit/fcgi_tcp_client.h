// fcgi_tcp_client.h -- a minimal FastCGI client for the tests of handler binaries: one request
// per connection, as nginx sends them with fastcgi_keep_conn off, over TCP (POUCH_LISTEN,
// issue 18) or a unix socket; the reply's CGI header block, body and status. Every read and
// write gives up after kFcgiTimeout, so a handler that hangs fails the test instead of
// hanging it.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

namespace pouch::testing {

struct FcgiReply {
    bool answered = false;   // a FastCGI END_REQUEST arrived
    bool timed_out = false;  // a read or write gave up after kFcgiTimeout
    std::string head;
    std::string body;
    int status = 0;
};

using FcgiParams = std::vector<std::pair<std::string, std::string>>;

inline constexpr std::chrono::seconds kFcgiTimeout{10};

inline std::string fcgi_record(unsigned char type, const std::string& content) {
    std::string r{'\x01',
                  static_cast<char>(type),
                  '\x00',
                  '\x01',  // request id 1
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

// BEGIN_REQUEST (responder; FCGI_KEEP_CONN when `keep`, as nginx sends with fastcgi_keep_conn
// on), the params, and the empty PARAMS record.
inline std::string fcgi_begin(const FcgiParams& params, bool keep = false) {
    std::string p;
    for (const auto& [k, v] : params) {
        fcgi_length(p, k.size());
        fcgi_length(p, v.size());
        p += k + v;
    }
    return fcgi_record(1, std::string(keep ? "\x00\x01\x01\x00\x00\x00\x00\x00"
                                           : "\x00\x01\x00\x00\x00\x00\x00\x00",
                                      8)) +
           fcgi_record(4, p) + fcgi_record(4, "");
}

// The body as STDIN records of at most 65535 bytes, then the empty STDIN record.
inline std::string fcgi_stdin(const std::string& body) {
    std::string out;
    for (size_t i = 0; i < body.size(); i += 65535) out += fcgi_record(5, body.substr(i, 65535));
    return out + fcgi_record(5, "");
}

// Sets the read and write timeouts of a connected socket to kFcgiTimeout.
inline void fcgi_set_timeouts(int fd) {
    timeval tv{};
    tv.tv_sec = static_cast<time_t>(kFcgiTimeout.count());
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
}

// Writes all of `bytes`; false when the peer closed or a write timed out.
inline bool fcgi_send(int fd, const std::string& bytes, FcgiReply& reply) {
    for (size_t done = 0; done < bytes.size();) {
        ssize_t n = ::send(fd, bytes.data() + done, bytes.size() - done, MSG_NOSIGNAL);
        if (n <= 0) {
            reply.timed_out = n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
            return false;
        }
        done += static_cast<size_t>(n);
    }
    return true;
}

// True when `in` holds whole records up to an END_REQUEST.
inline bool fcgi_has_end(const std::string& in) {
    for (size_t i = 0; i + 8 <= in.size();) {
        size_t len =
            (static_cast<unsigned char>(in[i + 4]) << 8) | static_cast<unsigned char>(in[i + 5]);
        size_t next = i + 8 + len + static_cast<unsigned char>(in[i + 6]);
        if (next > in.size()) return false;
        if (in[i + 1] == 3) return true;
        i = next;
    }
    return false;
}

// Reads the reply until the peer closes (or a read times out), or with `keep` until its
// END_REQUEST (the connection stays open), and decodes its records.
inline void fcgi_read_reply(int fd, FcgiReply& reply, bool keep = false) {
    std::string in;
    char buf[65536];
    ssize_t n = 0;
    while (!(keep && fcgi_has_end(in)) && (n = ::read(fd, buf, sizeof buf)) > 0)
        in.append(buf, static_cast<size_t>(n));
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) reply.timed_out = true;
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
}

// One request on a connected socket, which it closes: params, body, the whole reply.
inline FcgiReply fcgi_exchange(int fd, const FcgiParams& params, const std::string& body) {
    FcgiReply reply;
    fcgi_set_timeouts(fd);
    // A peer that refuses (closes) may still have sent something: read whatever came.
    fcgi_send(fd, fcgi_begin(params) + fcgi_stdin(body), reply);
    if (!reply.timed_out) fcgi_read_reply(fd, reply);
    ::close(fd);
    return reply;
}

// One request to 127.0.0.1:port; a refused connection gives answered == false.
inline FcgiReply fcgi_tcp(int port, const FcgiParams& params, const std::string& body = "") {
    int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<uint16_t>(port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
        ::close(fd);
        return {};
    }
    return fcgi_exchange(fd, params, body);
}

inline FcgiReply fcgi_tcp_get(int port, const std::string& uri) {
    return fcgi_tcp(port, {{"REQUEST_METHOD", "GET"}, {"REQUEST_URI", uri}});
}

// A connected unix socket at `path`, or -1.
inline int fcgi_unix_connect(const std::string& path) {
    int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::strncpy(addr.sun_path, path.c_str(), sizeof addr.sun_path - 1);
    if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
        ::close(fd);
        return -1;
    }
    return fd;
}

// One request over the unix socket at `path`; a refused connection gives answered == false.
inline FcgiReply fcgi_unix(const std::string& path, const FcgiParams& params,
                           const std::string& body = "") {
    int fd = fcgi_unix_connect(path);
    if (fd < 0) return {};
    return fcgi_exchange(fd, params, body);
}

}  // namespace pouch::testing
