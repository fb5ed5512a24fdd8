// statement.cpp -- `pouchctl genesis-statement`: a genesis roster statement of
// docs/CLIENT-FORMAT.md, signed, for the smoke, fault and bench set-ups and the worked example
// of docs/LOGIN.md (the service checks statement 0 of a genesis: decisions §15). Built with
// the client format's own writer (common/clientfmt/roster.h).
#include <cstdio>
#include <ctime>
#include <exception>

#include "common/clientfmt/encoding.h"
#include "common/clientfmt/roster.h"
#include "common/json/out.h"
#include "tools/pouchctl/client_args.h"
#include "tools/pouchctl/client_key.h"
#include "tools/pouchctl/commands.h"

namespace pouchctl {

int cmd_genesis_statement(const Args& args) {
    auto a = parse_args("genesis-statement", args, {"member", "by", "label", "key", "kind"});
    if (!a) return 2;
    auto member = a->get("member");
    if (!member || !a->positional.empty()) {
        std::fprintf(stderr,
                     "usage: pouchctl genesis-statement --member ID [--by ID] [--label L] "
                     "[--key SIGN_KEY_FILE] [--kind K]\n");
        return 2;
    }
    try {
        std::string err;
        SignKey sign = SignKey::generate();
        if (auto path = a->get("key")) {
            auto loaded = SignKey::load(*path, err);
            if (!loaded) {
                std::fprintf(stderr, "pouchctl genesis-statement: %s\n", err.c_str());
                return 1;
            }
            sign = std::move(*loaded);
        }
        SignKey enc = SignKey::generate();  // only its public half is named
        pouch::clientfmt::StatementBody b;
        b.seq = 0;
        b.kind = a->get("kind").value_or("genesis");
        b.member_id = *member;
        b.by = a->get("by").value_or(*member);
        b.sign_pub = {sign.x(), sign.y()};
        b.enc_pub = {enc.x(), enc.y()};
        b.label = a->get("label").value_or("web");
        b.at = pouch::clientfmt::rfc3339_utc(std::time(nullptr));
        pouch::clientfmt::SignedStatement s = pouch::clientfmt::sign_statement(b, sign);
        pouch::json::Out o;
        o.kv("statement", s.statement).kv("signature", s.signature);
        std::printf("%s\n", o.done().c_str());
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "pouchctl genesis-statement: %s\n", e.what());
        return 1;
    }
}

}  // namespace pouchctl
