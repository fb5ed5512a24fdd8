// blobs.cpp -- blob check (op 8), upload and download (ext), decisions §5.5. Blobs are
// deduplicated per storage account; their files are common/storage's (the layout, staging,
// nginx's internal location). Checks and uploads of one account serialise on its
// storage_accounts row (sql_blobs.h).
#include <string>
#include <unordered_map>
#include <vector>

#include "common/auth/caller.h"
#include "common/crypto/b64url.h"
#include "common/crypto/hash.h"
#include "common/db/array.h"
#include "common/json/out.h"
#include "common/model/usage.h"
#include "common/rules/quota.h"
#include "common/storage/blob_store.h"
#include "handlers/sync/routes.h"
#include "handlers/sync/sql_blobs.h"

namespace pouch::sync {

namespace {

std::string blob_data(const std::string& id, long long stored_size) {
    json::Out o;
    o.kv("id", id).kv("stored_size", stored_size);
    return o.done();
}

// Streams the body into a staged file while hashing it. 400 when the bytes are not `size`
// long or do not hash to `blob_id`.
void receive(http::Request& req, storage::StagedBlob& staged, const std::string& blob_id,
             long long size) {
    crypto::Blake3Hasher hasher;
    std::vector<char> buf(256 * 1024);
    long long total = 0;
    while (size_t n = req.read_body(buf.data(), buf.size())) {
        total += static_cast<long long>(n);
        if (total > size)
            throw validation_failed("", "the body is longer than the reserved size of " +
                                            std::to_string(size) + " bytes");
        hasher.update(std::string_view(buf.data(), n));
        staged.write(buf.data(), n);
    }
    if (total != size)
        throw validation_failed("", "the body has " + std::to_string(total) +
                                        " bytes, the reservation " + std::to_string(size));
    if (crypto::b64url_encode(hasher.finish()) != blob_id)
        throw validation_failed("", "the body's BLAKE3-256 hash does not match the blob id");
    staged.sync();
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
http::Response check_blobs(api::Call& call) {
    http::Services& s = call.services;
    const auth::Caller& c = call.who();
    const rapidjson::Document& doc = call.body;
    const auto& blobs = doc["blobs"];

    std::vector<std::string> ids;
    std::vector<long long> sizes;
    std::unordered_map<std::string, size_t> first;
    for (rapidjson::SizeType i = 0; i < blobs.Size(); ++i) {
        std::string id = json::text(blobs[i]["id"]);
        auto [it, fresh] = first.emplace(id, i);
        if (!fresh)
            throw validation_failed("/blobs/" + std::to_string(i) + "/id",
                                    "repeats /blobs/" + std::to_string(it->second) + "/id");
        ids.push_back(std::move(id));
        sizes.push_back(blobs[i]["stored_size"].GetInt64());
    }

    std::vector<std::string> missing;
    {
        auto conn = s.db.acquire();
        db::Transaction tx(*conn);
        conn->exec(sql::kLockAccount, {c.account_id});
        std::vector<size_t> missing_at;  // indexes into ids
        if (!ids.empty()) {
            std::string id_list = db::text_array(ids);
            db::Result present = conn->exec(sql::kPresentBlobs, {c.account_id, id_list});
            std::unordered_map<std::string, bool> is_present;
            for (int r = 0; r < present.rows(); ++r) is_present[present.text(r, "id")] = true;
            db::Result held = conn->exec(sql::kActiveReservations, {c.account_id, id_list});
            std::unordered_map<std::string, long long> reserved;
            for (int r = 0; r < held.rows(); ++r)
                reserved[held.text(r, "blob_id")] = held.int64(r, "stored_size");

            std::vector<rules::BlobAsk> asks;
            for (size_t i = 0; i < ids.size(); ++i) {
                auto it = reserved.find(ids[i]);
                bool present = is_present.count(ids[i]) > 0;
                if (!present) missing_at.push_back(i);
                asks.push_back({sizes[i], present, it == reserved.end() ? 0 : it->second});
            }
            long long requested = rules::reservation_growth(asks);
            if (requested > 0)
                if (auto excess =
                        rules::check_request(model::account_usage(*conn, c.account_id), requested))
                    throw model::quota_exceeded(
                        *excess,
                        "these blobs would take the account over its plan's storage limit");
        }
        if (!missing_at.empty()) {
            std::vector<std::string> size_texts;
            for (size_t i : missing_at) {
                missing.push_back(ids[i]);
                size_texts.push_back(std::to_string(sizes[i]));
            }
            conn->exec(sql::kReserve,
                       {c.account_id, db::text_array(missing), db::text_array(size_texts)});
        }
        tx.commit();
    }

    json::Out o;
    o.key("missing").arr();
    for (const auto& id : missing) o.str(id);
    o.end_arr();
    return api::ok(o.done());
}

namespace {

http::Response upload(api::Call& call) {
    http::Request& req = call.req;
    http::Services& s = call.services;
    const auth::Caller& c = call.who();
    const std::string& blob_id = req.param("blobId");
    long long size = 0;
    {
        auto conn = s.db.acquire();
        db::Result b = conn->exec(sql::kBlobOrReservation, {c.account_id, blob_id});
        if (!b.is_null(0, b.column("blob_size"))) {
            return api::ok(blob_data(blob_id, b.int64(0, "blob_size")));
        }
        if (b.is_null(0, b.column("reserved_size"))) throw no_reservation();
        size = b.int64(0, "reserved_size");
    }
    if (req.content_length != size)
        throw validation_failed("", "Content-Length must equal the reserved size of " +
                                        std::to_string(size) + " bytes");

    storage::BlobStore store(s.config.blob_dir);
    storage::StagedBlob staged(store);
    receive(req, staged, blob_id, size);

    auto conn = s.db.acquire();
    db::Transaction tx(*conn);
    conn->exec(sql::kLockAccount, {c.account_id});
    db::Result b = conn->exec(sql::kBlobOrReservation, {c.account_id, blob_id});
    if (!b.is_null(0, b.column("blob_size"))) {  // a concurrent upload of the same blob won
        return api::ok(blob_data(blob_id, b.int64(0, "blob_size")));
    }
    // expired or released while streaming
    if (b.is_null(0, b.column("reserved_size"))) throw no_reservation();
    if (b.int64(0, "reserved_size") != size)
        throw validation_failed("", "the reservation was changed to " +
                                        std::to_string(b.int64(0, "reserved_size")) +
                                        " bytes during the upload");
    // File first, then the row: a row never names a missing file.
    staged.place(c.account_id, blob_id);
    conn->exec(sql::kInsertBlob, {c.account_id, blob_id, std::to_string(size)});
    conn->exec(sql::kDeleteReservation, {c.account_id, blob_id});
    conn->exec(sql::kAddBlobBytes, {c.account_id, std::to_string(size)});
    tx.commit();

    return api::created(blob_data(blob_id, size));
}

}  // namespace

// A present blob answers 200 and its bytes are not touched. Otherwise the blob needs an active
// reservation of exactly Content-Length bytes. No database connection is held while the body
// streams; the account lock is taken only to place and record the file, so of two concurrent
// uploads of one blob the second finds the first's row and answers 200 (one row, one file).
// Whatever the answer, the pipeline reads the body to its end (common/api/route.cpp).
http::Response upload_blob(api::Call& call) {
    return upload(call);
}

// The handler only authorizes; nginx streams the file from its internal location
// (storage::kInternalLocation, aliased to the blob directory in nginx/pouch.conf.template).
http::Response download_blob(api::Call& call) {
    http::Request& req = call.req;
    http::Services& s = call.services;
    const auth::Caller& c = call.who();
    const std::string& blob_id = req.param("blobId");
    {
        auto conn = s.db.acquire();
        if (conn->exec(sql::kBlob, {c.account_id, blob_id}).rows() == 0) throw http::not_found();
    }
    http::Response r;
    r.raw = true;
    r.headers.emplace_back("Content-Type", "application/octet-stream");
    r.headers.emplace_back("X-Accel-Redirect",
                           storage::BlobStore::internal_uri(c.account_id, blob_id));
    return r;
}

}  // namespace pouch::sync
