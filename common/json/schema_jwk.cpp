// schema_jwk.cpp -- the jwk() schema node: an EC P-256 public key as {kty, crv, x, y} and
// nothing else, whose point must lie on the curve (checked by OpenSSL via common/crypto).
// A separate file so that only binaries using jwk() link the crypto code.
#include <memory>

#include "common/crypto/es256.h"
#include "common/json/schema_spec.h"

namespace pouch::json::schema {

Node jwk() {
    Node coordinate = b64url().min_chars(43).max_chars(43);
    Node base = object({
        req("kty", one_of({"EC"})),
        req("crv", one_of({"P-256"})),
        req("x", coordinate),
        req("y", coordinate),
    });
    auto s = std::make_shared<Spec>(base.spec());
    s->object_check = [](const rapidjson::Value& v) {
        const auto& x = v["x"];
        const auto& y = v["y"];
        return crypto::p256_on_curve(std::string_view(x.GetString(), x.GetStringLength()),
                                     std::string_view(y.GetString(), y.GetStringLength()));
    };
    s->object_check_what = "a point on the P-256 curve";
    return Node(std::move(s));
}

}  // namespace pouch::json::schema
