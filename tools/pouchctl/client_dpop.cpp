// client_dpop.cpp -- `pouchctl dpop`: a DPoP proof (RFC 9449 §4.2, decisions §1) for one
// request, signed with the CLI key, made by common/clientfmt/proofs.h (as `pouch` makes
// them), which writes its JSON with json::Out so any method, URL or jti is escaped.
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <exception>
#include <optional>
#include <string_view>

#include "common/clientfmt/proofs.h"
#include "tools/pouchctl/client_args.h"
#include "tools/pouchctl/client_key.h"
#include "tools/pouchctl/commands.h"

namespace pouchctl {
namespace {

bool parse_int64(const std::string& s, long long& out) {
    if (s.empty()) return false;
    char* end = nullptr;
    errno = 0;
    out = std::strtoll(s.c_str(), &end, 10);
    return errno == 0 && *end == '\0';
}

}  // namespace

int cmd_dpop(const Args& args) {
    auto a = parse_args("dpop", args, {"key", "method", "url", "token", "iat", "jti"});
    if (!a) return 2;
    auto path = a->get("key"), method = a->get("method"), url = a->get("url");
    if (!path || !method || !url || method->empty() || url->empty() || !a->positional.empty()) {
        std::fprintf(stderr,
                     "usage: pouchctl dpop --key K --method M --url U [--token T] [--iat N] "
                     "[--jti J]\n");
        return 2;
    }
    long long iat = static_cast<long long>(std::time(nullptr));
    if (auto s = a->get("iat"); s && !parse_int64(*s, iat)) {
        std::fprintf(stderr, "pouchctl dpop: --iat must be an integer (seconds since 1970)\n");
        return 2;
    }
    if (auto j = a->get("jti"); j && (j->empty() || j->size() > 128)) {
        std::fprintf(stderr, "pouchctl dpop: --jti must have 1..128 characters\n");
        return 2;
    }
    try {
        std::string err;
        auto key = SignKey::load(*path, err);
        if (!key) {
            std::fprintf(stderr, "pouchctl dpop: %s\n", err.c_str());
            return 1;
        }
        std::optional<std::string> token = a->get("token");
        std::optional<std::string_view> ath;
        if (token) ath = *token;
        std::string proof =
            pouch::clientfmt::make_dpop_proof(*key, *method, *url, ath, iat, a->get("jti"));
        std::printf("%s\n", proof.c_str());
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "pouchctl dpop: %s\n", e.what());
        return 1;
    }
}

}  // namespace pouchctl
