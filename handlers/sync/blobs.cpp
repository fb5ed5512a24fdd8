// blobs.cpp -- blob check (op 8), upload and download (ext), decisions §5.5. Blobs are
// deduplicated per storage account; their bytes are common/storage's (a directory or an S3
// bucket, staging, nginx's internal locations). Checks and uploads of one account serialise on
// its storage_accounts row (sql_blobs.h).
#include <algorithm>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <ctime>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "common/auth/caller.h"
#include "common/crypto/b64url.h"
#include "common/crypto/hash.h"
#include "common/json/described.h"
#include "common/log/log.h"
#include "common/model/usage.h"
#include "common/rules/quota.h"
#include "common/storage/blob_store.h"
#include "handlers/sync/routes.h"
#include "handlers/sync/sql_blobs.h"

namespace pouch::sync {

namespace {

// Receives the body into the staged blob (read straight into its memory, or through a scratch
// buffer into its file) while hashing it, a piece at a time or all at once; finish() answers
// 400 when the bytes are not `size` long or do not hash to `blob_id`.
class Receiver {
  public:
    Receiver(http::Request& req, storage::StagedBlob& staged, const std::string& blob_id,
             long long size)
        : req_(req), staged_(staged), blob_id_(blob_id), size_(size) {}

    // Reads at most `most` more bytes of the body; false at its end, or once the memory
    // buffer is full (finish() then judges the rest).
    bool pull(size_t most) {
        std::span<char> into = staged_.space();
        if (into.empty()) return false;
        size_t n = req_.read_body(into.data(), std::min(into.size(), most));
        if (n == 0) return false;
        total_ += static_cast<long long>(n);
        if (total_ > size_) throw longer();
        hasher_.update(std::string_view(into.data(), n));
        staged_.commit(n);
        return true;
    }

    // Reads the rest of the body and checks it.
    void finish() {
        while (pull(SIZE_MAX)) {
        }
        if (staged_.space().empty()) {  // a full memory buffer: one byte more is too many
            char extra;
            if (req_.read_body(&extra, 1)) throw longer();
        }
        if (total_ != size_)
            throw validation_failed("", "the body has " + std::to_string(total_) +
                                            " bytes, the reservation " + std::to_string(size_));
        if (crypto::b64url_encode(hasher_.finish()) != blob_id_)
            throw validation_failed("", "the body's BLAKE3-256 hash does not match the blob id");
        staged_.sync();
    }

    long long received() const { return total_; }

  private:
    Error longer() const {
        return validation_failed(
            "", "the body is longer than the reserved size of " + std::to_string(size_) + " bytes");
    }

    http::Request& req_;
    storage::StagedBlob& staged_;
    const std::string& blob_id_;
    long long size_;
    crypto::Blake3Hasher hasher_;
    long long total_ = 0;
};

// The body of a streamed S3 PUT. A thread of its own receives the request into the staged
// memory (reading and hashing) while the store's transfer sends what has arrived, so the two
// overlap rather than take turns in curl's read callback (issue 27: about 1 ms of a 4 MiB PUT
// to radosgw, docs/PERFORMANCE.md). Its last byte is withheld until the whole body is in and
// checked: a body that is short, long or of another hash throws from read() before the store
// has all of it, so the PUT never completes and no object holds bytes that do not hash to
// their key. Whatever happens, the body has been judged (all of it read and checked, or
// refused) once judge() returns.
class WithheldBody final : public storage::UploadSource {
  public:
    // The piece received per step: curl's upload buffer is 64 KiB.
    static constexpr size_t kPiece = 64 * 1024;

    WithheldBody(Receiver& rx, const storage::StagedBlob& staged, long long size)
        : rx_(rx), bytes_(staged.bytes().data()), size_(size), receiver_([this] { receive(); }) {}
    ~WithheldBody() override {
        if (receiver_.joinable()) receiver_.join();
    }
    WithheldBody(const WithheldBody&) = delete;
    WithheldBody& operator=(const WithheldBody&) = delete;

    size_t read(char* buf, size_t n) override {
        std::unique_lock lock(mu_);
        arrived_.wait(lock, [&] { return sent_ < ready() || refused_ || sent_ == size_; });
        if (refused_) std::rethrow_exception(refused_);
        size_t len = static_cast<size_t>(std::min<long long>(ready() - sent_, n));
        std::memcpy(buf, bytes_ + sent_, len);
        sent_ += static_cast<long long>(len);
        return len;
    }

    bool rewind(long long offset) override {
        std::lock_guard lock(mu_);
        if (offset < 0 || offset > sent_) return false;
        sent_ = offset;
        return true;
    }

    // Waits for the whole body to be received and judged; throws its refusal (400 or 413), so
    // it returns only for a checked body.
    void judge() {
        if (receiver_.joinable()) receiver_.join();
        if (refused_) std::rethrow_exception(refused_);
    }

  private:
    // What may be sent: all of it once checked, else all that arrived but the last byte.
    long long ready() const { return checked_ ? size_ : std::min(received_, size_ - 1); }

    void receive() {
        try {
            while (rx_.pull(kPiece)) {
                std::lock_guard lock(mu_);
                received_ = rx_.received();
                arrived_.notify_one();
            }
            rx_.finish();  // throws unless all `size` bytes are in and hash to the id
            std::lock_guard lock(mu_);
            received_ = rx_.received();
            checked_ = true;
        } catch (...) {
            std::lock_guard lock(mu_);
            refused_ = std::current_exception();
        }
        arrived_.notify_one();
    }

    Receiver& rx_;
    const char* bytes_;  // the staged memory, `size_` bytes long once all arrived
    long long size_;
    std::mutex mu_;
    std::condition_variable arrived_;
    long long received_ = 0;  // under mu_, as every field below
    long long sent_ = 0;
    bool checked_ = false;
    std::exception_ptr refused_;
    std::thread receiver_;  // last: starts once the fields above are made
};

// The store POUCH_BLOB_STORE names, made once (the configuration is read once at start).
const storage::BlobStore& blob_store(const config::Config& config) {
    static const std::unique_ptr<storage::BlobStore> store = storage::open_blob_store(config);
    return *store;
}

// Runs a step of the store; the store unreachable or failing (5xx) is 503 unavailable with
// Retry-After, so the client retries the whole upload (no row was written).
template <class F>
void with_store(const http::Request& req, const storage::BlobStore& store, F&& step) {
    try {
        step();
    } catch (const storage::Unavailable& e) {
        log::warn(
            "the blob store is unavailable",
            {{"request_id", req.request_id}, {"store", store.describe()}, {"error", e.what()}});
        throw unavailable("the blob store is unavailable; retry later");
    }
}

Error no_reservation() {
    return validation_failed("",
                             "this blob has no active reservation: check it first with "
                             "POST /v1/pouches/{pouchId}/blobs/check");
}

}  // namespace

// Missing ids are reserved for 24 h from this call: re-checking an id that is still reserved
// refreshes its expiry and takes the newly stated size, but never reserves it twice. Only the
// bytes a call adds (new ids, or growth of a re-checked size) are weighed against the plan.
CheckAnswer check_blobs(api::Call& call, const CheckRequest& body) {
    http::Services& s = call.services;
    // Blobs are the owner's: its plan pays, whoever uploads (SHARING.md §8).
    const std::string& owner = call.pouch().owner();
    const std::vector<BlobSize>& blobs = body.blobs;

    std::vector<std::string> ids;
    std::unordered_map<std::string, size_t> first;
    for (size_t i = 0; i < blobs.size(); ++i) {
        auto [it, fresh] = first.emplace(blobs[i].id, i);
        if (!fresh)
            throw validation_failed("/blobs/" + std::to_string(i) + "/id",
                                    "repeats /blobs/" + std::to_string(it->second) + "/id");
        ids.push_back(blobs[i].id);
    }

    CheckAnswer answer;
    {
        auto conn = s.db.acquire();
        db::Transaction tx(*conn);
        conn->run(sql::kLockAccount, {.account_id = owner});
        std::vector<BlobSize> missing;
        if (!ids.empty()) {
            std::unordered_map<std::string, bool> is_present;
            for (const sql::BlobId& b :
                 conn->rows(sql::kPresentBlobs, {.account_id = owner, .blob_ids = ids}))
                is_present[b.id] = true;
            std::unordered_map<std::string, long long> reserved;
            for (const sql::Reservation& r :
                 conn->rows(sql::kActiveReservations, {.account_id = owner, .blob_ids = ids}))
                reserved[r.blob_id] = r.stored_size;

            std::vector<rules::BlobAsk> asks;
            for (const BlobSize& b : blobs) {
                auto it = reserved.find(b.id);
                bool present = is_present.count(b.id) > 0;
                if (!present) missing.push_back(b);
                asks.push_back({b.stored_size, present, it == reserved.end() ? 0 : it->second});
            }
            long long requested = rules::reservation_growth(asks);
            if (requested > 0)
                if (auto excess =
                        rules::check_request(model::account_usage(*conn, owner), requested))
                    throw model::quota_exceeded(
                        *excess,
                        "these blobs would take the account over its plan's storage limit");
        }
        for (const BlobSize& b : missing) answer.missing.push_back(b.id);
        if (!missing.empty())
            conn->run(sql::kReserve, {.account_id = owner, .blobs = {std::move(missing)}});
        tx.commit();
    }
    return answer;
}

namespace {

// What sql/016_blob_record.sql found under the account's lock.
enum class RowOutcome { recorded, stored, unreserved, resized, renewed };

RowOutcome row_outcome(const std::string& text) {
    if (text == "recorded") return RowOutcome::recorded;
    if (text == "stored") return RowOutcome::stored;
    if (text == "unreserved") return RowOutcome::unreserved;
    if (text == "resized") return RowOutcome::resized;
    if (text == "renewed") return RowOutcome::renewed;
    throw std::logic_error("blob_record: unknown outcome " + text);
}

// The answer to a row written or not (every outcome but renewed): `stored_size` is the blob's
// size (stored), the reservation's new size (resized), or the upload's (recorded).
http::Response row_answer(const std::string& blob_id, RowOutcome outcome,
                          std::optional<long long> stored_size) {
    switch (outcome) {
        case RowOutcome::recorded:
            return api::created(json::to_json(BlobSize{blob_id, *stored_size}));
        case RowOutcome::stored:  // a concurrent upload of the same blob won
            return api::ok(json::to_json(BlobSize{blob_id, *stored_size}));
        case RowOutcome::unreserved:  // expired or released while the bytes were sent
            throw no_reservation();
        case RowOutcome::renewed:  // not an answer: the caller asks the store again
            throw std::logic_error("blob_record: a renewed reservation has no answer");
        case RowOutcome::resized:
            break;
    }
    throw validation_failed("", "the reservation was changed to " + std::to_string(*stored_size) +
                                    " bytes during the upload");
}

// sql::kRecordBlob, its answer typed.
std::pair<RowOutcome, std::optional<long long>> record_row(db::Conn& conn, const std::string& owner,
                                                           const std::string& blob_id,
                                                           long long size,
                                                           std::optional<long long> since) {
    sql::Recorded r = conn.one(sql::kRecordBlob, {.account_id = owner,
                                                  .blob_id = blob_id,
                                                  .stored_size = size,
                                                  .reserved_since = since.value_or(-1)});
    return {row_outcome(r.outcome), r.stored_size};
}

// The row in a transaction holding the account's lock, with the store asked again under it
// when the reservation was renewed after it expired, or made anew, while the bytes were sent
// (a HEAD, and the PUT again if the object is gone); the directory always places its file
// here. The row itself is written by the same statement as on the fast path, which takes the
// lock this transaction already holds and finds what was read here.
http::Response record_under_lock(db::Conn& conn, const http::Request& req,
                                 const storage::BlobStore& store, storage::StagedBlob& staged,
                                 const std::string& owner, const std::string& blob_id,
                                 long long size, std::optional<long long> reserved_since) {
    db::Transaction tx(conn);
    conn.run(sql::kLockAccount, {.account_id = owner});
    auto b = conn.one(sql::kBlobOrReservation, {.account_id = owner, .blob_id = blob_id});
    if (b.blob_size) return row_answer(blob_id, RowOutcome::stored, b.blob_size);
    if (!b.reserved_size) return row_answer(blob_id, RowOutcome::unreserved, {});
    if (*b.reserved_size != size) return row_answer(blob_id, RowOutcome::resized, b.reserved_size);
    const bool held_all_along = b.reserved_since == reserved_since;
    with_store(req, store, [&] { staged.place(owner, blob_id, !held_all_along); });
    auto [outcome, stored_size] = record_row(conn, owner, blob_id, size, b.reserved_since);
    http::Response answer = row_answer(blob_id, outcome, stored_size);
    tx.commit();
    return answer;
}

http::Response upload(api::Call& call) {
    http::Request& req = call.req;
    http::Services& s = call.services;
    // Blobs are the owner's: its plan pays, whoever uploads (SHARING.md §8).
    const std::string& owner = call.pouch().owner();
    const std::string& blob_id = req.param("blobId");
    long long size = 0;
    std::optional<long long> reserved_since;
    {
        auto conn = s.db.acquire();
        auto b = conn->one(sql::kBlobOrReservation, {.account_id = owner, .blob_id = blob_id});
        if (b.blob_size) return api::ok(json::to_json(BlobSize{blob_id, *b.blob_size}));
        if (!b.reserved_size) throw no_reservation();
        size = *b.reserved_size;
        reserved_since = b.reserved_since;
    }
    if (req.content_length != size)
        throw validation_failed("", "Content-Length must equal the reserved size of " +
                                        std::to_string(size) + " bytes");

    // From here the body is read, at the client's pace: on a thread of its own, within the
    // caller's and the server's bounds on uploads in progress (429 / 503 past them).
    if (req.enter_receipt) req.enter_receipt(call.who().account_id);
    const storage::BlobStore& store = blob_store(s.config);
    storage::StagedBlob staged(store, size);
    Receiver rx(req, staged, blob_id, size);
    // The checked bytes go to the store before any lock is taken (an S3 PUT may be long); an
    // object without a row (the transaction below fails) is removed by `pouchctl gc` later.
    if (store.streams_uploads() && staged.in_memory() && size > 0) {
        // The PUT starts at once and sends the body as it arrives, all but its last byte
        // until the body is checked (WithheldBody): the transfer overlaps the receipt.
        WithheldBody body(rx, staged, size);
        try {
            with_store(req, store, [&] { store.upload_streamed(body, size, owner, blob_id); });
        } catch (...) {
            // The store failed (503, or 500 for a refusal), perhaps before the body was
            // judged: it is judged first, as when it was received before the PUT began, so a
            // wrong body is 400 whatever the store did.
            body.judge();
            throw;
        }
        body.judge();  // the store had the last byte, which goes only once the body is checked
    } else {
        rx.finish();
        with_store(req, store, [&] { store.upload(staged, owner, blob_id); });
    }

    // Object first, then the row: a row never names a missing object. gc removes unrecorded
    // objects only under the account's lock, and never one whose key has a reservation row
    // (gc.cpp). When the reservation read before the PUT is still the one there (same
    // created_at), it existed all along: no gc can have removed the object since the PUT
    // began, and the PUT's answer stands: on S3 the row is then written in one round trip
    // (sql::kRecordBlob). The directory renames its file into place under the lock.
    auto conn = s.db.acquire();
    if (store.placed_by_upload()) {
        auto [outcome, stored_size] = record_row(*conn, owner, blob_id, size, reserved_since);
        if (outcome != RowOutcome::renewed) return row_answer(blob_id, outcome, stored_size);
    }
    return record_under_lock(*conn, req, store, staged, owner, blob_id, size, reserved_since);
}

}  // namespace

// A present blob answers 200 and its bytes are not touched. Otherwise the blob needs an active
// reservation of exactly Content-Length bytes. No database connection is held while the body
// streams; the account lock is taken only to place and record the file, so of two concurrent
// uploads of one blob the second finds the first's row and answers 200 (one row, one file).
// A body left unread (a refusal, a blob already present) is not waited for: the connection
// closes after the answer (common/http/server.cpp, reply()).
http::Response upload_blob(api::Call& call) {
    return upload(call);
}

// The handler only authorizes; nginx streams the bytes from its internal location: /_blobs/
// (the blob directory) or /_s3/ (the bucket, through a presigned URL), both in
// nginx/pouch.conf.template.
http::Response download_blob(api::Call& call) {
    http::Request& req = call.req;
    http::Services& s = call.services;
    // Blobs are the owner's: its plan pays, whoever uploads (SHARING.md §8).
    const std::string& owner = call.pouch().owner();
    const std::string& blob_id = req.param("blobId");
    {
        auto conn = s.db.acquire();
        if (!conn->maybe_one(sql::kBlob, {.account_id = owner, .blob_id = blob_id}))
            throw http::not_found();
    }
    http::Response r;
    r.raw = true;
    r.headers.emplace_back("Content-Type", "application/octet-stream");
    r.headers.emplace_back("X-Accel-Redirect",
                           blob_store(s.config).download_uri(owner, blob_id, std::time(nullptr)));
    return r;
}

}  // namespace pouch::sync
