// client.h -- what every pouch-loadgen mode shares: a raw HTTP/1.1 client for the loopback
// stack (keep-alive, Content-Length framed answers, as nginx sends them), commit requests
// proved as the CLI proves them (common/clientfmt/proofs.h), a clock, percentiles, and the
// `--key value` options and pouch files of the modes.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "tools/pouchctl/client_key.h"

namespace loadgen {

// A TCP connection to 127.0.0.1:port with TCP_NODELAY, or -1.
int connect_to(int port);

// Sends req and reads one response. Returns the status, -1 on a send/receive error or a
// response without Content-Length; body gets the response body.
int roundtrip(int fd, const std::string& req, std::string& body);

// Milliseconds on the steady clock (only differences mean anything).
double now_ms();

// The JSON body of a commit of `batch` new puts (fresh ids, 96-byte random envelopes, a fixed
// signature, no blobs) signed by `member`. The last op's artifact and revision ids go to
// *art / *rev when given.
std::string put_ops_body(const std::string& epoch, const std::string& member, int batch,
                         std::string* art = nullptr, std::string* rev = nullptr);

// A raw HTTP request: a CLI commit of put_ops_body to `pouch` with its Service-Signature and
// a fresh DPoP proof bound to `access` (common/clientfmt/proofs.h, as the `pouch` CLI sends).
std::string cli_commit_request(const pouchctl::SignKey& k, const std::string& url,
                               const std::string& host, const std::string& access,
                               const std::string& pouch, const std::string& epoch,
                               const std::string& member, int batch, std::string* art = nullptr,
                               std::string* rev = nullptr);

// The value at fraction p (0..1) of an ascending vector; -1 when it is empty.
double percentile(const std::vector<double>& sorted, double p);

// `--key value` pairs of argv over the given defaults (a mode checks what it needs).
std::map<std::string, std::string> parse_opts(int argc, char** argv,
                                              std::map<std::string, std::string> defaults);

// One line of a --pouches / --idle-pouches file: "id epoch after".
struct PouchLine {
    std::string id, epoch;
    long long after = 0;
};
std::vector<PouchLine> read_pouches(const std::string& path);

// "host:port" of a --url http://127.0.0.1:PORT, its port; false when url is not of that form.
bool parse_url(const std::string& url, std::string& host, int& port);

}  // namespace loadgen
