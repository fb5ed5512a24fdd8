// client.h -- what every pouch-loadgen mode shares: a raw HTTP/1.1 client for the loopback
// stack (keep-alive, Content-Length framed answers, as nginx sends them), DPoP proofs made
// with the CLI sign key (tools/pouchctl/client_jws.h), a clock and percentiles.
#pragma once

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

// A fresh DPoP proof (RFC 9449) for method + url, iat now; with an `ath` claim when token is
// not empty.
std::string dpop(const pouchctl::SignKey& k, const std::string& method, const std::string& url,
                 const std::string& token);

// A raw HTTP request: a CLI commit of `batch` new puts (96-byte envelopes) to `pouch` with its
// Service-Signature (JCS + BLAKE3 + ES256, as `pouchctl sign-body`) and a fresh DPoP proof
// bound to `access`. The last op's artifact and revision ids go to *art / *rev when given.
std::string cli_commit_request(const pouchctl::SignKey& k, const std::string& url,
                               const std::string& host, const std::string& access,
                               const std::string& pouch, const std::string& epoch,
                               const std::string& member, int batch, std::string* art = nullptr,
                               std::string* rev = nullptr);

// The value at fraction p (0..1) of an ascending vector; -1 when it is empty.
double percentile(const std::vector<double>& sorted, double p);

// "host:port" of a --url http://127.0.0.1:PORT, its port; false when url is not of that form.
bool parse_url(const std::string& url, std::string& host, int& port);

}  // namespace loadgen
