// crypto_bench.cpp -- Google Benchmark of the server's per-request crypto (issue 6, target 6):
// ES256 verify (compared by tools/bench/run.sh with `openssl speed ecdsap256`), JCS + BLAKE3
// of a 50-op 1 MiB commit body (what the commit handler does before checking the
// Service-Signature), and a full DPoP proof verification with and without the jti replay
// check against Redis (POUCH_REDIS_URL; skipped when unset). Keys and proofs are made with
// the CLI's own signing code (tools/pouchctl/client_key, client_jws).
#include <cstdlib>
#include <ctime>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "common/auth/replay_cache.h"
#include "common/crypto/b64url.h"
#include "common/crypto/es256.h"
#include "common/crypto/hash.h"
#include "common/crypto/random.h"
#include "common/db/pool.h"
#include "common/jose/dpop.h"
#include "common/jose/service_signature.h"
#include "common/json/jcs.h"
#include "common/json/parse.h"
#include "common/redis/client.h"
#include "tools/pouchctl/client_jws.h"
#include "tools/pouchctl/client_key.h"

namespace {

using pouch::crypto::b64url_encode;

const pouchctl::SignKey& key() {
    static const pouchctl::SignKey k = pouchctl::SignKey::generate();
    return k;
}

const pouch::crypto::P256PublicKey& pub() {
    static const auto p = *pouch::crypto::P256PublicKey::from_jwk(key().x(), key().y());
    return p;
}

std::string uuid() {
    std::string r = pouch::crypto::to_hex(pouch::crypto::random_bytes(16));
    return r.substr(0, 8) + "-" + r.substr(8, 4) + "-4" + r.substr(13, 3) + "-8" + r.substr(17, 3) +
           "-" + r.substr(20, 12);
}

// A commit body of `ops` puts whose envelopes add up to about `bytes`.
std::string commit_body(int ops, size_t bytes) {
    std::string member = uuid();
    std::string env = b64url_encode(pouch::crypto::random_bytes(bytes / ops * 3 / 4));
    std::string b = R"({"operation_id":")" + uuid() + R"(","epoch":")" + uuid() + R"(","ops":[)";
    for (int i = 0; i < ops; ++i) {
        if (i) b += ',';
        b += R"({"type":"put","artifact_id":")" + uuid() + R"(","revision_id":")" + uuid() +
             R"(","base_revision_id":null,"key_gen":1,"envelope":")" + env +
             R"(","signature":"c2ln","signer_member_id":")" + member + R"(","blob_ids":[]})";
    }
    return b + "]}";
}

const char* kUrl = "http://127.0.0.1:8080";

std::string dpop_proof(const std::string& method, const std::string& path, const std::string& token,
                       const pouchctl::SignKey& k = key()) {
    std::string header =
        R"({"typ":"dpop+jwt","alg":"ES256","jwk":{"kty":"EC","crv":"P-256","x":")" + k.x() +
        R"(","y":")" + k.y() + R"("}})";
    std::string claims = R"({"jti":")" + b64url_encode(pouch::crypto::random_bytes(16)) +
                         R"(","htm":")" + method + R"(","htu":")" + kUrl + path + R"(","iat":)" +
                         std::to_string(std::time(nullptr)) + R"(,"ath":")" +
                         b64url_encode(pouch::crypto::sha256(token)) + R"("})";
    return pouchctl::jws_compact(k, header, claims);
}

void BM_ES256Verify(benchmark::State& state) {
    std::string msg = "header.payload-of-a-typical-dpop-proof";
    std::string sig = key().sign_es256(msg);
    for (auto _ : state) benchmark::DoNotOptimize(pub().verify(msg, sig));
    state.counters["verify/s"] =
        benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_ES256Verify);

void BM_ES256Sign(benchmark::State& state) {
    std::string msg = "header.payload-of-a-typical-dpop-proof";
    for (auto _ : state) benchmark::DoNotOptimize(key().sign_es256(msg));
}
BENCHMARK(BM_ES256Sign);

// Parse (strict) + JCS + BLAKE3 of a 50-op ~1 MiB body: the server's work before the
// signature check.
void BM_CommitBodyParseJcsBlake3(benchmark::State& state) {
    std::string body = commit_body(50, 1 << 20);
    for (auto _ : state) {
        rapidjson::Document doc = pouch::json::parse_strict(body);
        auto canonical = pouch::json::jcs(doc);
        benchmark::DoNotOptimize(pouch::crypto::blake3_256(*canonical));
    }
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * body.size()));
    state.counters["body_bytes"] = static_cast<double>(body.size());
}
BENCHMARK(BM_CommitBodyParseJcsBlake3)->Unit(benchmark::kMillisecond);

void BM_CommitBodyJcsBlake3(benchmark::State& state) {
    std::string body = commit_body(50, 1 << 20);
    rapidjson::Document doc = pouch::json::parse_strict(body);
    for (auto _ : state) {
        auto canonical = pouch::json::jcs(doc);
        benchmark::DoNotOptimize(pouch::crypto::blake3_256(*canonical));
    }
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * body.size()));
}
BENCHMARK(BM_CommitBodyJcsBlake3)->Unit(benchmark::kMillisecond);

void BM_Blake3_1MiB(benchmark::State& state) {
    std::string data = pouch::crypto::random_bytes(1 << 20);
    for (auto _ : state) benchmark::DoNotOptimize(pouch::crypto::blake3_256(data));
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * data.size()));
}
BENCHMARK(BM_Blake3_1MiB)->Unit(benchmark::kMicrosecond);

void BM_ServiceSignatureVerify(benchmark::State& state) {
    std::string hash = pouch::crypto::blake3_256("body");
    std::string header = R"({"alg":"ES256"})";
    std::string sig = pouchctl::jws_detached(key(), header, b64url_encode(hash));
    for (auto _ : state)
        benchmark::DoNotOptimize(pouch::jose::verify_service_signature(sig, hash, pub()));
}
BENCHMARK(BM_ServiceSignatureVerify);

// Proofs are made outside the timed region (each needs a fresh jti for the replay check).
// One key, as a device sends, so after the first proof its parsed key comes from the cache
// (common/crypto/key_cache.h); with new_keys every proof is of a key never seen (a miss).
void dpop_bench(benchmark::State& state, pouch::auth::ReplayCache* cache, bool new_keys = false) {
    const std::string token = "access-token-of-typical-length-" + std::string(40, 'a');
    const std::string path = "/v1/pouches/0b7c1f6e-4c1a-4f5e-9a1b-2d3c4e5f6a7b";
    std::vector<std::string> proofs;
    size_t next = 0;
    for (auto _ : state) {
        if (next == proofs.size()) {
            state.PauseTiming();
            proofs.clear();
            for (int i = 0; i < 1000; ++i) {
                if (new_keys)
                    proofs.push_back(dpop_proof("GET", path, token, pouchctl::SignKey::generate()));
                else
                    proofs.push_back(dpop_proof("GET", path, token));
            }
            next = 0;
            state.ResumeTiming();
        }
        pouch::jose::DpopInput in{
            proofs[next++], "GET", kUrl, path, token, static_cast<long long>(std::time(nullptr))};
        auto p = pouch::jose::verify_dpop(in);
        if (cache && !cache->first_use(p.jkt, p.jti)) state.SkipWithError("replayed");
        benchmark::DoNotOptimize(p);
    }
}

void BM_DpopVerify(benchmark::State& state) {
    dpop_bench(state, nullptr);
}
BENCHMARK(BM_DpopVerify);

void BM_DpopVerifyNewKey(benchmark::State& state) {
    dpop_bench(state, nullptr, true);
}
BENCHMARK(BM_DpopVerifyNewKey);

void BM_DpopVerifyWithReplayCheck(benchmark::State& state) {
    const char* redis_url = std::getenv("POUCH_REDIS_URL");
    const char* db_url = std::getenv("POUCH_DATABASE_URL");
    if (!redis_url || !db_url) {
        state.SkipWithError("POUCH_REDIS_URL / POUCH_DATABASE_URL not set");
        return;
    }
    static pouch::redis::Client redis(redis_url);
    static pouch::db::Pool pool(db_url, 1);
    static pouch::auth::ReplayCache cache(redis, pool);
    dpop_bench(state, &cache);
}
BENCHMARK(BM_DpopVerifyWithReplayCheck);

}  // namespace

BENCHMARK_MAIN();
