// config.h -- configuration from the environment (decisions §10), read once at start.
// A malformed value is a startup error with the variable's name, never a silent default.
#pragma once

#include <stdexcept>
#include <string>

namespace pouch::config {

// A configuration a handler cannot start with: exit status 2, "bad configuration".
struct BadConfig : std::runtime_error {
    using std::runtime_error::runtime_error;
};

struct Config {
    std::string database_url = "postgresql:///pouch";    // POUCH_DATABASE_URL
    std::string redis_url = "redis://127.0.0.1:6379/0";  // POUCH_REDIS_URL
    std::string public_url = "http://127.0.0.1:8080";    // POUCH_PUBLIC_URL (DPoP htu base)
    std::string web_url = "http://127.0.0.1:8080";       // POUCH_WEB_URL (authorize_url base)
    std::string blob_dir = "/var/lib/pouch/blobs";       // POUCH_BLOB_DIR
    // POUCH_BLOB_STORE: "s3://BUCKET" keeps blobs in that bucket (common/storage/s3_store.h;
    // uploads are still staged under blob_dir/tmp); unset, or a path (which then replaces
    // POUCH_BLOB_DIR), keeps them in the directory blob_dir.
    std::string s3_bucket;    // empty: the local directory
    std::string s3_endpoint;  // POUCH_S3_ENDPOINT, "http://127.0.0.1:7480" (no trailing /)
    std::string s3_region = "us-east-1";  // POUCH_S3_REGION
    std::string s3_access_key;            // POUCH_S3_ACCESS_KEY
    std::string s3_secret_key;            // POUCH_S3_SECRET_KEY
    std::string socket_path;              // POUCH_SOCKET (no systemd socket)
    // POUCH_LISTEN: "host:port" (or ":port", every address) to serve FastCGI on TCP, for
    // handler hosts behind a remote nginx (docs/SCALING.md). Needs libfcgi's own
    // FCGI_WEB_SERVER_ADDRS, the nginx addresses allowed to connect, or the start fails
    // (checked where any TCP listen socket is taken, common/http/server.cpp).
    std::string listen;
    std::string log_level = "info";  // POUCH_LOG_LEVEL
    int threads = 16;                // POUCH_THREADS
    // POUCH_LISTENERS: workers waiting for requests at once, the others spares
    // (common/http/connections.h); 0, the default: one fewer than the CPUs, at least one.
    int listeners = 0;
    int db_pool = 8;                    // POUCH_DB_POOL
    int login_ttl_seconds = 600;        // POUCH_LOGIN_TTL
    int argon2_parallel = 2;            // POUCH_ARGON2_PARALLEL
    int max_waiters_per_account = 256;  // POUCH_MAX_WAITERS_PER_ACCOUNT
    // Blob uploads whose body is still arriving, per process (common/http/receipts.h): of one
    // account (the next is 429) and in all (the next is 503).
    int uploads_per_account = 16;   // POUCH_UPLOADS_PER_ACCOUNT
    int uploads_in_progress = 256;  // POUCH_UPLOADS_IN_PROGRESS
    // POUCH_UPLOAD_SECONDS: an upload's body must arrive within this many seconds plus one per
    // 32 KiB of it; past that it is 408 (common/http/server.cpp).
    int upload_seconds = 60;

    // Throws BadConfig naming the variable on a malformed value; runs check().
    static Config from_env();

    // Throws BadConfig for settings that exclude each other (POUCH_LISTEN and a socket path).
    // A caller that overrides a field after from_env (--socket) runs it again.
    void check() const;
};

}  // namespace pouch::config
