// password.cpp -- crypto_pwhash_str* behind a counting semaphore: each hash takes 64 MiB,
// so a burst of logins waits instead of exhausting memory.
#include "handlers/account/password.h"

#include <sodium.h>

#include <condition_variable>
#include <mutex>
#include <stdexcept>

namespace pouch::account {

namespace {

std::mutex g_mu;
std::condition_variable g_cv;
int g_free = 2;
std::string g_dummy_hash;

class Slot {
public:
    Slot() {
        std::unique_lock<std::mutex> lock(g_mu);
        g_cv.wait(lock, [] { return g_free > 0; });
        --g_free;
    }
    ~Slot() {
        {
            std::lock_guard<std::mutex> lock(g_mu);
            ++g_free;
        }
        g_cv.notify_one();
    }
};

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
    g_free = max_parallel;
    g_dummy_hash = hash_unthrottled("pouch-dummy-password-for-equal-time");
}

std::string password_hash(const std::string& password) {
    Slot slot;
    return hash_unthrottled(password);
}

bool password_verify(const std::string& stored_hash, const std::string& password) {
    Slot slot;
    return crypto_pwhash_str_verify(stored_hash.c_str(), password.data(), password.size()) == 0;
}

void password_burn(const std::string& password) {
    Slot slot;
    // The result is meaningless; only the work matters.
    if (crypto_pwhash_str_verify(g_dummy_hash.c_str(), password.data(), password.size()) == 0)
        return;
}

}  // namespace pouch::account
