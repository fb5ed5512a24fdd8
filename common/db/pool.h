// pool.h -- PostgreSQL access through libpq: RAII results, named statements prepared once
// per connection, a bounded thread-safe pool and transactions. A broken connection is reset
// on next use; a connection that comes back inside a transaction is rolled back; when the
// database cannot be reached acquire() throws Error `unavailable`.
#pragma once

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

// Debian keeps libpq headers under postgresql/ and the Makefile adds no -I for it.
#include <postgresql/libpq-fe.h>

#include "common/types/error.h"

namespace pouch::db {

// A statement with a stable name; SQL lives in one header per group (handlers/<g>/sql.h).
struct Statement {
    const char* name;
    const char* sql;
};

template <class P, class R>
class Query;  // query.h: a statement typed by its parameter and row structs

using Param = std::optional<std::string>;  // nullopt is SQL NULL; text or binary (exec's formats)

// A failed statement, as the one error type (common/types/error.h): `unavailable` (503, with
// Retry-After) when the connection broke, `internal` (500) otherwise; the SQLSTATE ("23505"
// unique violation) in `sqlstate`, libpq's text in `cause` (logged, never answered).
Error statement_failed(std::string cause, std::string sqlstate, bool connection_lost);

class Result {
public:
    explicit Result(PGresult* r) : r_(r, &PQclear) {}
    int rows() const { return PQntuples(r_.get()); }
    int column(const char* name) const;  // throws std::logic_error if absent
    bool is_null(int row, int col) const { return PQgetisnull(r_.get(), row, col); }
    std::string text(int row, int col) const;
    std::string text(int row, const char* col) const { return text(row, column(col)); }
    std::optional<std::string> opt(int row, const char* col) const;
    long long int64(int row, const char* col) const;
    bool boolean(int row, const char* col) const;
    PGresult* raw() const { return r_.get(); }

private:
    std::unique_ptr<PGresult, decltype(&PQclear)> r_;
};

class Conn {
public:
    explicit Conn(std::string url) : url_(std::move(url)) {}
    ~Conn();
    Conn(const Conn&) = delete;
    Conn& operator=(const Conn&) = delete;

    // Runs a named statement, preparing it on this connection the first time. `formats`: one
    // per parameter, 1 for binary format (query.h's Columns); empty means all text.
    Result exec(const Statement& st, const std::vector<Param>& params = {},
                const std::vector<int>& formats = {});
    // A typed statement (query.h, which defines these): every row, at most one row (several
    // are a programming error), exactly one row, or no rows wanted (the affected count).
    template <class P, class R>
    std::vector<R> rows(const Query<P, R>& q, const P& p);
    template <class P, class R>
    std::optional<R> maybe_one(const Query<P, R>& q, const P& p);
    template <class P, class R>
    R one(const Query<P, R>& q, const P& p);
    template <class P, class R>
    long long run(const Query<P, R>& q, const P& p);
    // Runs SQL without parameters (BEGIN, SAVEPOINT, migrations). Never with user data.
    Result exec_sql(const std::string& sql);

    bool ensure_connected();  // connects or resets; false if the server is unreachable
    bool in_transaction() const;
    PGconn* raw() { return c_; }
    // Why the last ensure_connected() failed (libpq's message), for logs and operator tools.
    const std::string& last_error() const { return last_error_; }

private:
    void check(PGresult* r, const char* what);
    std::string url_;
    std::string last_error_;
    PGconn* c_ = nullptr;
    std::set<std::string> prepared_;
};

class Pool;

class Lease {
public:
    Lease(Pool* pool, std::unique_ptr<Conn> c) : pool_(pool), c_(std::move(c)) {}
    Lease(Lease&& o) noexcept = default;
    ~Lease();
    Conn& operator*() { return *c_; }
    Conn* operator->() { return c_.get(); }

private:
    Pool* pool_;
    std::unique_ptr<Conn> c_;
};

// Called by acquire() before a connection is used, on the calling thread: the FastCGI loop
// sets it so a worker about to wait on PostgreSQL lets a spare listen meanwhile
// (common/http/connections.h). Set once, before any thread uses a pool.
void set_before_use(void (*fn)());

class Pool {
public:
    Pool(std::string url, int size,
         std::chrono::milliseconds acquire_timeout = std::chrono::milliseconds(5000));
    // Throws Error unavailable (common/types/error.h) when no working connection is had in time.
    Lease acquire();
    int size() const { return size_; }
    int idle() const;
    // For the metrics (common/metrics): connections leased now, and callers waiting for one.
    int in_use() const;
    int waiting() const;

private:
    friend class Lease;
    void release(std::unique_ptr<Conn> c);
    std::string url_;
    int size_;
    std::chrono::milliseconds timeout_;
    mutable std::mutex mu_;
    std::condition_variable cv_;
    std::vector<std::unique_ptr<Conn>> idle_;
    int created_ = 0;
    int waiting_ = 0;
};

// BEGIN on construction, ROLLBACK in the destructor unless commit() ran.
class Transaction {
public:
    explicit Transaction(Conn& c);
    ~Transaction();
    void commit();
    Conn& conn() { return c_; }

private:
    Conn& c_;
    bool done_ = false;
};

}  // namespace pouch::db
