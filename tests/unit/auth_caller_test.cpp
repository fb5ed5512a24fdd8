// auth_caller_test.cpp -- common/auth/caller and dpop_check (decisions §1): which credential
// problems are refused before any lookup (no database needed), and, against a migrated
// PostgreSQL (POUCH_TEST_DATABASE_URL; skipped when unset), the CLI caller's checks in order:
// revoked device, revoked or expired token, a proof of another key (which must not burn its
// jti), and a good call that resolves the device and refuses the same proof twice.
#include <gtest/gtest.h>

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <ctime>
#include <string>

#include "common/auth/caller.h"
#include "common/auth/dpop_check.h"
#include "common/auth/replay_cache.h"
#include "common/crypto/b64url.h"
#include "common/crypto/hash.h"
#include "common/crypto/random.h"
#include "common/http/error.h"
#include "tests/unit/crypto_test_util.h"

namespace http = pouch::http;

using pouch::Error;
using pouch::auth::Caller;
using pouch::http::Request;
using pouch::testutil::DpopClaims;
using pouch::testutil::TestP256Key;

namespace {

std::string env(const char* name) {
    const char* v = std::getenv(name);
    return v && *v ? v : "";
}

#define REQUIRE_DB()                                           \
    const std::string db_url = env("POUCH_TEST_DATABASE_URL"); \
    if (db_url.empty()) GTEST_SKIP() << "POUCH_TEST_DATABASE_URL is not set"

const char* kBase = "https://sync.example.com";

// Services whose database and Redis are whatever the test names; the pool connects lazily,
// so tests that must be refused before any lookup give it an address nobody serves.
struct Fixture {
    explicit Fixture(std::string db_url = "postgresql://127.0.0.1:1/none",
                     std::string redis_url = "redis://127.0.0.1:1")
        : pool(db_url, 2, std::chrono::milliseconds(2000)),
          redis(redis_url),
          replay(redis, pool),
          services{config, pool, redis, replay} {
        config.public_url = kBase;
    }
    pouch::config::Config config;
    pouch::db::Pool pool;
    pouch::redis::Client redis;
    pouch::auth::ReplayCache replay;
    pouch::http::Services services;
};

http::Request request(const std::string& method, const std::string& path) {
    http::Request r;
    r.method = method;
    r.path = path;
    return r;
}

// Runs authenticate() and returns the error it throws (an empty code if none).
pouch::Error refusal(const http::Request& r, pouch::http::Services& s) {
    try {
        pouch::auth::authenticate(r, s);
    } catch (const pouch::Error& e) {
        return e;
    }
    pouch::Error none(pouch::Code::internal);
    none.code = {};
    return none;
}

// ath = b64url(SHA-256(access token)), RFC 9449 §4.2.
std::string ath_of(const std::string& token) {
    return pouch::crypto::b64url_encode(pouch::crypto::sha256(token));
}

std::string proof_for(const TestP256Key& key, const std::string& method, const std::string& path,
                      const std::string& token, const std::string& jti = {}) {
    DpopClaims c;
    c.jti = jti.empty() ? pouch::crypto::uuid_v4() : jti;
    c.htm = method;
    c.htu = std::string(kBase) + path;
    c.iat = static_cast<long long>(std::time(nullptr));
    c.ath = ath_of(token);
    return pouch::testutil::make_dpop(key, c);
}

}  // namespace

TEST(AuthCaller, NoAuthorizationHeaderIsUnauthenticated) {
    Fixture f;
    pouch::Error e = refusal(request("GET", "/v1/devices"), f.services);
    EXPECT_EQ(pouch::http::status_of(e.fault), 401);
    EXPECT_EQ(e.code, "unauthenticated");
}

TEST(AuthCaller, AccessTokenSentAsBearerIsRefusedWithoutALookup) {
    Fixture f;
    http::Request r = request("GET", "/v1/devices");
    r.headers["authorization"] = "Bearer " + pouch::crypto::new_token("svc_at_");
    pouch::Error e = refusal(r, f.services);
    EXPECT_EQ(pouch::http::status_of(e.fault), 401);
    EXPECT_EQ(e.code, "unauthenticated");
    EXPECT_NE(e.message.find("DPoP"), std::string::npos) << e.message;
}

TEST(AuthCaller, UnsupportedSchemeAndMalformedHeaderAreUnauthenticated) {
    Fixture f;
    for (std::string h : {"Basic dXNlcjpwYXNz", "DPoP", "Token abc"}) {
        http::Request r = request("GET", "/v1/devices");
        r.headers["authorization"] = h;
        pouch::Error e = refusal(r, f.services);
        EXPECT_EQ(pouch::http::status_of(e.fault), 401) << h;
        EXPECT_EQ(e.code, "unauthenticated") << h;
    }
}

TEST(AuthCaller, DpopTokenOfTheWrongShapeIsUnauthenticatedBeforeTheProofIsRead) {
    Fixture f;
    for (std::string t : {"svc_ws_" + std::string(43, 'A'), "svc_at_" + std::string(42, 'A'),
                          "svc_at_" + std::string(42, 'A') + "=", std::string("svc_at_")}) {
        http::Request r = request("GET", "/v1/devices");
        r.headers["authorization"] = "DPoP " + t;
        pouch::Error e = refusal(r, f.services);
        EXPECT_EQ(pouch::http::status_of(e.fault), 401) << t;
        EXPECT_EQ(e.code, "unauthenticated") << t;
    }
}

TEST(AuthCaller, DpopSchemeWithoutAProofIsInvalidDpopProofWithTheChallengeHeader) {
    Fixture f;
    http::Request r = request("GET", "/v1/devices");
    r.headers["authorization"] = "DPoP " + pouch::crypto::new_token("svc_at_");
    pouch::Error e = refusal(r, f.services);
    EXPECT_EQ(pouch::http::status_of(e.fault), 401);
    EXPECT_EQ(e.code, "invalid_dpop_proof");
    ASSERT_EQ(e.headers.size(), 1u);
    EXPECT_EQ(e.headers[0].first, "WWW-Authenticate");
    EXPECT_EQ(e.headers[0].second, "DPoP error=\"invalid_dpop_proof\"");
}

TEST(AuthCaller, TwoDpopHeadersJoinedByACommaAreRefused) {
    Fixture f;
    TestP256Key key;
    std::string token = pouch::crypto::new_token("svc_at_");
    http::Request r = request("GET", "/v1/devices");
    r.headers["authorization"] = "DPoP " + token;
    r.headers["dpop"] = proof_for(key, "GET", "/v1/devices", token) + ", " +
                        proof_for(key, "GET", "/v1/devices", token);
    pouch::Error e = refusal(r, f.services);
    EXPECT_EQ(e.code, "invalid_dpop_proof");
}

TEST(AuthCaller, HasTokenShapeWantsThePrefixAnd43B64urlCharacters) {
    using pouch::auth::has_token_shape;
    EXPECT_TRUE(has_token_shape("svc_rt_" + std::string(43, '-'), "svc_rt_"));
    EXPECT_TRUE(has_token_shape(pouch::crypto::new_token("svc_ws_"), "svc_ws_"));
    EXPECT_FALSE(has_token_shape("svc_rt_" + std::string(44, 'a'), "svc_rt_"));
    EXPECT_FALSE(has_token_shape("svc_rt_" + std::string(42, 'a') + "+", "svc_rt_"));
    EXPECT_FALSE(has_token_shape("svc_at_" + std::string(43, 'a'), "svc_rt_"));
}

// --- with PostgreSQL ------------------------------------------------------------------------

namespace {

// One user, account, device member and device with an access token bound to `key`.
struct Enrolled {
    std::string device_id = pouch::crypto::uuid_v4();
    std::string member_id = pouch::crypto::uuid_v4();
    std::string account_id = pouch::crypto::uuid_v4();
    std::string user_id = pouch::crypto::uuid_v4();
    std::string token = pouch::crypto::new_token("svc_at_");

    Enrolled(pouch::db::Pool& pool, const TestP256Key& key) {
        auto c = pool.acquire();
        // Test data only: every value here is made by the test itself.
        c->exec_sql("BEGIN");
        c->exec_sql("INSERT INTO users (id, email, password_hash) VALUES ('" + user_id + "', 'u" +
                    user_id + "@example.com', 'x')");
        c->exec_sql("INSERT INTO storage_accounts (id, owner_user_id, plan_id) SELECT '" +
                    account_id + "', '" + user_id + "', id FROM plans WHERE is_default");
        c->exec_sql("INSERT INTO members (id, account_id, kind, device_id) VALUES ('" + member_id +
                    "', '" + account_id + "', 'device', '" + device_id + "')");
        c->exec_sql(
            "INSERT INTO devices (id, account_id, member_id, name, os, arch, cli_version,"
            " key_storage, sign_x, sign_y, sign_jkt, enc_x, enc_y, welcome) VALUES ('" +
            device_id + "', '" + account_id + "', '" + member_id +
            "', 'unit', 'linux', 'x86_64', '1', 'file', '" + key.x() + "', '" + key.y() + "', '" +
            key.jkt() + "', '" + key.x() + "', '" + key.y() + "', 'w')");
        c->exec_sql("INSERT INTO access_tokens (token_hash, device_id, jkt, expires_at) VALUES ('" +
                    pouch::crypto::token_hash(token) + "', '" + device_id + "', '" + key.jkt() +
                    "', now() + interval '1 hour')");
        c->exec_sql("COMMIT");
    }
    void sql(pouch::db::Pool& pool, const std::string& statement) {
        auto c = pool.acquire();
        c->exec_sql(statement);
    }
};

http::Request cli_request(const TestP256Key& key, const std::string& token,
                          const std::string& jti = {}) {
    http::Request r = request("GET", "/v1/devices");
    r.headers["authorization"] = "DPoP " + token;
    r.headers["dpop"] = proof_for(key, "GET", "/v1/devices", token, jti);
    return r;
}

}  // namespace

TEST(AuthCallerDb, GoodProofResolvesTheDeviceAndTheSameProofIsThenRefused) {
    REQUIRE_DB();
    Fixture f(db_url);
    TestP256Key key;
    Enrolled e(f.pool, key);
    http::Request r = cli_request(key, e.token);
    Caller c = pouch::auth::authenticate(r, f.services);
    EXPECT_TRUE(c.is_cli());
    EXPECT_EQ(c.device_id, e.device_id);
    EXPECT_EQ(c.member_id, e.member_id);
    EXPECT_EQ(c.account_id, e.account_id);
    EXPECT_EQ(c.user_id, e.user_id);
    EXPECT_EQ(c.sign_x, key.x());
    EXPECT_EQ(refusal(r, f.services).code, "invalid_dpop_proof");
}

TEST(AuthCallerDb, ProofOfAnotherKeyIsRefusedAndDoesNotBurnItsJti) {
    REQUIRE_DB();
    Fixture f(db_url);
    TestP256Key key, other;
    Enrolled e(f.pool, key);
    std::string jti = pouch::crypto::uuid_v4();
    EXPECT_EQ(refusal(cli_request(other, e.token, jti), f.services).code, "invalid_dpop_proof");
    // The same jti with the right key is still fresh: the refused proof was never recorded.
    EXPECT_EQ(refusal(cli_request(key, e.token, jti), f.services).code, "");
}

TEST(AuthCallerDb, RevokedDeviceIsDeviceRevokedWhateverTheTokenState) {
    REQUIRE_DB();
    Fixture f(db_url);
    TestP256Key key;
    Enrolled e(f.pool, key);
    e.sql(f.pool, "UPDATE devices SET revoked_at = now() WHERE id = '" + e.device_id + "'");
    e.sql(f.pool,
          "UPDATE access_tokens SET revoked_at = now(), expires_at = now() WHERE device_id = '" +
              e.device_id + "'");
    pouch::Error err = refusal(cli_request(key, e.token), f.services);
    EXPECT_EQ(pouch::http::status_of(err.fault), 401);
    EXPECT_EQ(err.code, "device_revoked");
}

TEST(AuthCallerDb, RevokedTokenIsUnauthenticatedAndExpiredTokenIsTokenExpired) {
    REQUIRE_DB();
    Fixture f(db_url);
    TestP256Key key;
    Enrolled e(f.pool, key);
    e.sql(f.pool,
          "UPDATE access_tokens SET expires_at = now() - interval '1 second' WHERE device_id = '" +
              e.device_id + "'");
    pouch::Error expired = refusal(cli_request(key, e.token), f.services);
    EXPECT_EQ(pouch::http::status_of(expired.fault), 401);
    EXPECT_EQ(expired.code, "token_expired");
    e.sql(f.pool,
          "UPDATE access_tokens SET revoked_at = now() WHERE device_id = '" + e.device_id + "'");
    pouch::Error revoked = refusal(cli_request(key, e.token), f.services);
    EXPECT_EQ(pouch::http::status_of(revoked.fault), 401);
    EXPECT_EQ(revoked.code, "unauthenticated");
}

TEST(AuthCallerDb, UnknownAccessTokenIsUnauthenticated) {
    REQUIRE_DB();
    Fixture f(db_url);
    TestP256Key key;
    pouch::Error e = refusal(cli_request(key, pouch::crypto::new_token("svc_at_")), f.services);
    EXPECT_EQ(pouch::http::status_of(e.fault), 401);
    EXPECT_EQ(e.code, "unauthenticated");
}

TEST(AuthCallerDb, RequireWebRefusesACliCallerWithWrongCaller) {
    REQUIRE_DB();
    Fixture f(db_url);
    TestP256Key key;
    Enrolled e(f.pool, key);
    try {
        pouch::auth::require_web(cli_request(key, e.token), f.services);
        FAIL() << "a CLI caller passed require_web";
    } catch (const pouch::Error& err) {
        EXPECT_EQ(pouch::http::status_of(err.fault), 403);
        EXPECT_EQ(err.code, "wrong_caller");
    }
}

// --- a web session and the pouch of a read scope, in one lookup (issue 25) -------------------

namespace {

using pouch::auth::PouchPrefetch;

// One user and account with a web session and a pouch (its owner's access row is the trigger's).
struct WebSession {
    std::string user_id = pouch::crypto::uuid_v4();
    std::string account_id = pouch::crypto::uuid_v4();
    std::string pouch_id = pouch::crypto::uuid_v4();
    std::string token = pouch::crypto::new_token("svc_ws_");

    explicit WebSession(pouch::db::Pool& pool) {
        // Test data only: every value here is made by the test itself.
        sql(pool,
            "BEGIN;"
            " INSERT INTO users (id, email, password_hash) VALUES ('" +
                user_id + "', 'w" + user_id +
                "@example.com', 'x');"
                " INSERT INTO storage_accounts (id, owner_user_id, plan_id) SELECT '" +
                account_id + "', '" + user_id + "', id FROM plans WHERE is_default;" +
                " INSERT INTO pouches (id, account_id, epoch, key_gen) VALUES ('" + pouch_id +
                "', '" + account_id + "', gen_random_uuid(), 3);" +
                " INSERT INTO web_sessions (user_id, token_hash, expires_at) VALUES ('" + user_id +
                "', '" + pouch::crypto::token_hash(token) +
                "', now() + interval '1 hour'); COMMIT");
    }
    std::string sql(pouch::db::Pool& pool, const std::string& statement) {
        auto c = pool.acquire();
        pouch::db::Result r = c->exec_sql(statement);
        return r.rows() > 0 ? r.text(0, 0) : "";
    }
};

http::Request web_request(const std::string& token) {
    http::Request r = request("GET", "/v1/pouches/x");
    r.headers["authorization"] = "Bearer " + token;
    return r;
}

pouch::Error refusal_with(const http::Request& r, pouch::http::Services& s, PouchPrefetch& p) {
    try {
        pouch::auth::authenticate(r, s, &p);
    } catch (const pouch::Error& e) {
        return e;
    }
    pouch::Error none(pouch::Code::internal);
    none.code = {};
    return none;
}

}  // namespace

TEST(AuthCallerDb, WebSessionReadsItsAccountsPouchInTheSameLookup) {
    REQUIRE_DB();
    Fixture f(db_url);
    WebSession w(f.pool), other(f.pool);
    PouchPrefetch mine{.pouch_id = w.pouch_id};
    Caller c = pouch::auth::authenticate(web_request(w.token), f.services, &mine);
    EXPECT_TRUE(c.is_web());
    EXPECT_EQ(c.account_id, w.account_id);
    EXPECT_EQ(c.user_id, w.user_id);
    ASSERT_TRUE(mine.loaded);
    ASSERT_TRUE(mine.row);
    EXPECT_EQ(mine.row->id, w.pouch_id);
    EXPECT_EQ(mine.row->account_id, w.account_id);
    EXPECT_EQ(mine.row->key_gen, 3);
    EXPECT_EQ(mine.row->role, "admin");
    EXPECT_FALSE(mine.row->shared);
    // Another account's pouch is read as not found (the pipeline's 404), the caller resolved.
    PouchPrefetch theirs{.pouch_id = other.pouch_id};
    EXPECT_EQ(refusal_with(web_request(w.token), f.services, theirs).code, "");
    EXPECT_TRUE(theirs.loaded);
    EXPECT_FALSE(theirs.row);
}

TEST(AuthCallerDb, ExpiredIdleOrUnknownWebSessionIsRefusedAndLoadsNoPouch) {
    REQUIRE_DB();
    Fixture f(db_url);
    WebSession w(f.pool);
    PouchPrefetch unknown{.pouch_id = w.pouch_id};
    pouch::Error e =
        refusal_with(web_request(pouch::crypto::new_token("svc_ws_")), f.services, unknown);
    EXPECT_EQ(pouch::http::status_of(e.fault), 401);
    EXPECT_EQ(e.code, "unauthenticated");
    EXPECT_FALSE(unknown.loaded);
    // The session changed by `set`, then refused as token_expired without its pouch read.
    auto expired_after = [&](const std::string& set) {
        w.sql(f.pool, "UPDATE web_sessions SET " + set + " WHERE user_id = '" + w.user_id + "'");
        PouchPrefetch prefetch{.pouch_id = w.pouch_id};
        pouch::Error refused = refusal_with(web_request(w.token), f.services, prefetch);
        EXPECT_EQ(pouch::http::status_of(refused.fault), 401) << set;
        EXPECT_EQ(refused.code, "token_expired") << set;
        EXPECT_FALSE(prefetch.loaded) << set;
    };
    expired_after("last_used_at = now() - interval '15 days'");  // idle
    expired_after("last_used_at = now(), expires_at = now()");   // expired
}

TEST(AuthCallerDb, StaleWebSessionIsTouchedWhenItsPouchIsReadWithIt) {
    REQUIRE_DB();
    Fixture f(db_url);
    WebSession w(f.pool);
    const std::string where = " WHERE user_id = '" + w.user_id + "'";
    w.sql(f.pool, "UPDATE web_sessions SET last_used_at = now() - interval '2 minutes'" + where);
    PouchPrefetch p{.pouch_id = w.pouch_id};
    pouch::auth::authenticate(web_request(w.token), f.services, &p);
    EXPECT_TRUE(p.loaded && p.row);
    EXPECT_EQ(w.sql(f.pool,
                    "SELECT last_used_at > now() - interval '1 minute' FROM web_sessions" + where),
              "t");
}
