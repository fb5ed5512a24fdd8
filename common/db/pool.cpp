// pool.cpp -- libpq connections, named statements and the bounded pool (pool.h).
// Relies on libpq facts from decisions §11: one thread per PGconn, prepared statements are
// lost on PQreset, a connection must be PQTRANS_IDLE before it goes back to the pool.
#include "common/db/pool.h"

#include <poll.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "common/types/error.h"

namespace pouch::db {

namespace {

// libpq prints notices (and the FATAL a terminated backend sends while idle) to stderr by
// default; stderr is our JSON log, so they are dropped here.
void quiet_notice(void*, const char*) {}

// 25006 read_only_sql_transaction: this server is (now) a standby. After a failover
// (docs/SCALING.md) a connection may still reach the old primary, demoted; it is dropped so
// the next use connects again, and target_session_attrs=read-write in the URL picks the new
// primary among its hosts.
bool read_only_sqlstate(const std::string& s) { return s == "25006"; }

bool lost_sqlstate(const std::string& s) {
    return s.rfind("08", 0) == 0 || s == "57P01" || s == "57P02" || s == "57P03" ||
           read_only_sqlstate(s);
}

}  // namespace

Error statement_failed(std::string cause, std::string sqlstate, bool connection_lost) {
    Error e = connection_lost ? unavailable() : Error(Code::internal);
    e.sqlstate = std::move(sqlstate);
    e.connection_lost = connection_lost;
    e.cause = std::move(cause);
    return e;
}

// ---- Result ---------------------------------------------------------------------------

int Result::column(const char* name) const {
    int c = PQfnumber(r_.get(), name);
    if (c < 0) throw std::logic_error(std::string("db: no column ") + name);
    return c;
}

std::string Result::text(int row, int col) const {
    if (row < 0 || row >= rows() || col < 0 || col >= PQnfields(r_.get()))
        throw std::logic_error("db: row or column out of range");
    return std::string(PQgetvalue(r_.get(), row, col),
                       static_cast<size_t>(PQgetlength(r_.get(), row, col)));
}

std::optional<std::string> Result::opt(int row, const char* col) const {
    int c = column(col);
    if (row < 0 || row >= rows()) throw std::logic_error("db: row out of range");
    if (is_null(row, c)) return std::nullopt;
    return text(row, c);
}

long long Result::int64(int row, const char* col) const {
    std::string v = text(row, col);
    char* end = nullptr;
    errno = 0;
    long long n = std::strtoll(v.c_str(), &end, 10);
    if (v.empty() || errno != 0 || *end != '\0')
        throw std::logic_error(std::string("db: column ") + col + " is not an integer");
    return n;
}

bool Result::boolean(int row, const char* col) const {
    return text(row, col) == "t";
}

// ---- Conn -----------------------------------------------------------------------------

Conn::~Conn() {
    if (c_) PQfinish(c_);
}

bool Conn::ensure_connected() {
    if (!c_) {
        // Defaults first so values in the URL override them (later keywords win). Without
        // connect_timeout libpq would wait for the kernel's TCP timeout on a dead host; the
        // keepalives and tcp_user_timeout (ms) end a connection whose host vanished (a failed
        // primary's machine, docs/SCALING.md) within seconds instead of many minutes.
        const char* keys[] = {"connect_timeout", "keepalives_idle", "keepalives_interval",
                              "keepalives_count", "tcp_user_timeout", "dbname", nullptr};
        const char* vals[] = {"5", "10", "3", "3", "15000", url_.c_str(), nullptr};
        c_ = PQconnectdbParams(keys, vals, 1);
        if (!c_) return false;
        PQsetNoticeProcessor(c_, quiet_notice, nullptr);
        prepared_.clear();
        if (PQstatus(c_) != CONNECTION_OK) {
            last_error_ = PQerrorMessage(c_);
            PQfinish(c_);
            c_ = nullptr;
            return false;
        }
        return true;
    }
    // An idle connection has nothing to read, so readable input means the server spoke
    // first: usually a FATAL before closing (pg_terminate_backend, restart). The close itself
    // may not have arrived yet when the FATAL is read, so a connection that spoke unasked is
    // replaced, not kept: its first statement would fail otherwise. (The pool never LISTENs;
    // a rare ParameterStatus after a configuration reload costs one reconnect.)
    bool spoke = false;
    for (int i = 0; i < 4 && PQstatus(c_) == CONNECTION_OK; ++i) {
        pollfd p{PQsocket(c_), POLLIN, 0};
        if (p.fd < 0 || poll(&p, 1, 0) <= 0) break;
        spoke = true;
        if (!PQconsumeInput(c_)) break;
        while (PGnotify* n = PQnotifies(c_)) PQfreemem(n);
    }
    if (PQstatus(c_) == CONNECTION_OK && !spoke) return true;
    PQreset(c_);
    prepared_.clear();  // the new backend knows none of them
    if (PQstatus(c_) == CONNECTION_OK) return true;
    last_error_ = PQerrorMessage(c_);
    return false;
}

bool Conn::in_transaction() const {
    if (!c_) return false;
    PGTransactionStatusType t = PQtransactionStatus(c_);
    return t == PQTRANS_INTRANS || t == PQTRANS_INERROR || t == PQTRANS_ACTIVE;
}

void Conn::check(PGresult* r, const char* what) {
    ExecStatusType st = r ? PQresultStatus(r) : PGRES_FATAL_ERROR;
    if (st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK || st == PGRES_EMPTY_QUERY) return;
    std::string sqlstate;
    std::string msg;
    if (r) {
        if (const char* s = PQresultErrorField(r, PG_DIAG_SQLSTATE)) sqlstate = s;
        msg = PQresultErrorMessage(r);
    }
    if (msg.empty() && c_) msg = PQerrorMessage(c_);
    while (!msg.empty() && (msg.back() == '\n' || msg.back() == ' ')) msg.pop_back();
    bool lost = !c_ || PQstatus(c_) != CONNECTION_OK || lost_sqlstate(sqlstate);
    if (r) PQclear(r);
    if (c_ && read_only_sqlstate(sqlstate)) {
        PQfinish(c_);
        c_ = nullptr;
    }
    throw statement_failed(std::string(what) + ": " + msg, sqlstate, lost);
}

Result Conn::exec(const Statement& st, const std::vector<Param>& params,
                  const std::vector<int>& formats) {
    if (!c_) throw statement_failed(std::string(st.name) + ": not connected", "08003", true);
    if (!prepared_.count(st.name)) {
        PGresult* p = PQprepare(c_, st.name, st.sql, 0, nullptr);
        check(p, st.name);
        PQclear(p);
        // Protocol-level prepared statements survive a ROLLBACK, so remembering it here is
        // right even if the surrounding transaction later fails.
        prepared_.insert(st.name);
    }
    if (!formats.empty() && formats.size() != params.size())
        throw std::logic_error(std::string("db: ") + st.name + " has " +
                               std::to_string(params.size()) + " parameters but " +
                               std::to_string(formats.size()) + " formats");
    std::vector<const char*> values;
    std::vector<int> lengths;  // read by libpq for binary parameters only
    values.reserve(params.size());
    lengths.reserve(params.size());
    for (const auto& p : params) {
        values.push_back(p ? p->c_str() : nullptr);
        lengths.push_back(p ? static_cast<int>(p->size()) : 0);
    }
    PGresult* r = PQexecPrepared(c_, st.name, static_cast<int>(values.size()), values.data(),
                                 lengths.data(), formats.empty() ? nullptr : formats.data(), 0);
    check(r, st.name);
    return Result(r);
}

Result Conn::exec_sql(const std::string& sql) {
    if (!c_) throw statement_failed("exec_sql: not connected", "08003", true);
    PGresult* r = PQexec(c_, sql.c_str());
    check(r, "exec_sql");
    return Result(r);
}

// ---- Pool -----------------------------------------------------------------------------

Lease::~Lease() {
    if (pool_ && c_) pool_->release(std::move(c_));
}

Pool::Pool(std::string url, int size, std::chrono::milliseconds acquire_timeout)
    : url_(std::move(url)), size_(size < 1 ? 1 : size), timeout_(acquire_timeout) {}

int Pool::idle() const {
    std::lock_guard<std::mutex> lk(mu_);
    return static_cast<int>(idle_.size());
}

int Pool::in_use() const {
    std::lock_guard<std::mutex> lk(mu_);
    return created_ - static_cast<int>(idle_.size());
}

int Pool::waiting() const {
    std::lock_guard<std::mutex> lk(mu_);
    return waiting_;
}

namespace {
void (*g_before_use)() = nullptr;
}  // namespace

void set_before_use(void (*fn)()) {
    g_before_use = fn;
}

Lease Pool::acquire() {
    if (g_before_use) g_before_use();
    const auto deadline = std::chrono::steady_clock::now() + timeout_;
    std::unique_ptr<Conn> c;
    {
        std::unique_lock<std::mutex> lk(mu_);
        for (;;) {
            if (!idle_.empty()) {
                c = std::move(idle_.back());
                idle_.pop_back();
                break;
            }
            if (created_ < size_) {
                ++created_;
                c = std::make_unique<Conn>(url_);
                break;
            }
            ++waiting_;
            bool timed_out = cv_.wait_until(lk, deadline) == std::cv_status::timeout;
            --waiting_;
            if (timed_out && idle_.empty() && created_ >= size_)
                throw unavailable("database pool exhausted, retry shortly");
        }
    }
    // Connecting or resetting happens outside the lock: it can take up to connect_timeout.
    if (!c->ensure_connected()) {
        {
            std::lock_guard<std::mutex> lk(mu_);
            --created_;
        }
        cv_.notify_one();
        throw unavailable("database unavailable, retry shortly");
    }
    return Lease(this, std::move(c));
}

void Pool::release(std::unique_ptr<Conn> c) {
    bool keep = true;
    PGconn* pg = c->raw();
    if (pg && PQstatus(pg) == CONNECTION_OK && c->in_transaction()) {
        // A statement still running (async use) cannot be rolled back safely: drop it.
        if (PQtransactionStatus(pg) == PQTRANS_ACTIVE) {
            keep = false;
        } else {
            PGresult* r = PQexec(pg, "ROLLBACK");
            keep = r && PQresultStatus(r) == PGRES_COMMAND_OK &&
                   PQtransactionStatus(pg) == PQTRANS_IDLE;
            if (r) PQclear(r);
        }
    }
    // A connection with a bad status is kept: the next acquire resets it (ensure_connected).
    {
        std::lock_guard<std::mutex> lk(mu_);
        if (keep)
            idle_.push_back(std::move(c));
        else
            --created_;
    }
    cv_.notify_one();
}

// ---- Transaction ----------------------------------------------------------------------

Transaction::Transaction(Conn& c) : c_(c) {
    c_.exec_sql("BEGIN");
}

Transaction::~Transaction() {
    if (done_) return;
    try {
        c_.exec_sql("ROLLBACK");
    } catch (...) {
        // The pool rolls back or drops the connection on release; nothing more to do here.
    }
}

void Transaction::commit() {
    done_ = true;
    Result r = c_.exec_sql("COMMIT");
    // COMMIT of a transaction that already failed succeeds with the tag ROLLBACK; treating
    // that as success would report writes that never happened.
    if (std::strcmp(PQcmdStatus(r.raw()), "ROLLBACK") == 0)
        throw statement_failed("commit: transaction was rolled back", "25P02", false);
}

}  // namespace pouch::db
