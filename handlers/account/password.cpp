// password.cpp -- crypto_pwhash_str* on the bounded HashPool (hash_pool.h): each hash takes
// 64 MiB, so at most POUCH_ARGON2_PARALLEL run at once, at most 4x that many wait, and a hash
// that cannot start within 2 s answers 503 instead of holding the request (decisions §13).
#include "handlers/account/password.h"

#include <sodium.h>

#include <chrono>
#include <memory>
#include <stdexcept>
#include <vector>

#include "common/auth/hash_pool.h"
#include "common/metrics/metrics.h"

namespace pouch::account {

namespace {

constexpr std::chrono::milliseconds kStartTimeout{2000};

std::unique_ptr<auth::HashPool> g_pool;
std::string g_dummy_hash;
std::vector<metrics::Probe> g_probes;  // after g_pool: unregistered before it goes

std::string hash_unthrottled(const std::string& password) {
    char out[crypto_pwhash_STRBYTES];
    if (crypto_pwhash_str(out, password.data(), password.size(),
                          crypto_pwhash_OPSLIMIT_INTERACTIVE,
                          crypto_pwhash_MEMLIMIT_INTERACTIVE) != 0)
        throw std::runtime_error("crypto_pwhash_str failed (out of memory)");
    return out;
}

}  // namespace

void password_init(int max_parallel) {
    if (sodium_init() < 0) throw std::runtime_error("sodium_init failed");
    g_dummy_hash = hash_unthrottled("pouch-dummy-password-for-equal-time");
    g_pool = std::make_unique<auth::HashPool>(max_parallel, 4 * static_cast<size_t>(max_parallel),
                                        kStartTimeout);
    // The Argon2 queue, for operators (docs/SCALING.md).
    g_probes.push_back(metrics::add_probe("pouch_argon2_running", "Argon2id hashes running now.",
                                          metrics::Kind::gauge,
                                          [] { return g_pool->stats().running; }));
    g_probes.push_back(metrics::add_probe("pouch_argon2_queued",
                                          "Argon2id hashes waiting for a hashing thread now.",
                                          metrics::Kind::gauge,
                                          [] { return g_pool->stats().queued; }));
    g_probes.push_back(metrics::add_probe(
        "pouch_argon2_refused_total",
        "Password requests answered 503 because no hashing thread was free in time.",
        metrics::Kind::counter, [] { return static_cast<double>(g_pool->stats().refused); }));
}

std::string password_hash(const std::string& password) {
    std::string out;
    g_pool->run([&] { out = hash_unthrottled(password); });
    return out;
}

bool password_verify(const std::string& stored_hash, const std::string& password) {
    bool ok = false;
    g_pool->run([&] {
        ok = crypto_pwhash_str_verify(stored_hash.c_str(), password.data(), password.size()) == 0;
    });
    return ok;
}

void password_burn(const std::string& password) {
    // The result is meaningless; only the work matters.
    volatile int sink = 0;
    g_pool->run([&] {
        sink = crypto_pwhash_str_verify(g_dummy_hash.c_str(), password.data(), password.size());
    });
    (void)sink;
}

}  // namespace pouch::account
