// quota.h -- the storage arithmetic of a plan (decisions §5.5, §13) as pure functions, so the
// rules are proved by table tests and the writers only read usage and apply the verdict.
//
// An account's usage is stored bytes (envelopes, revisions, blobs, roster statements, share
// bundles) plus bytes reserved by active blob reservations. Only growth is ever refused:
// lowering a plan never deletes data, and an account over its plan can still delete, rotate
// or write something no larger than what it replaced.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace pouch::rules {

struct Usage {
    long long limit_bytes = 0;     // the plan's storage_bytes
    long long stored_bytes = 0;    // everything stored
    long long reserved_bytes = 0;  // active blob reservations

    long long used() const { return stored_bytes + reserved_bytes; }
};

// Why a write is refused: the details of 403 quota_exceeded.
struct QuotaExcess {
    long long limit_bytes = 0;
    long long used_bytes = 0;       // stored + reserved before the write
    long long requested_bytes = 0;  // what the write adds
};

// A write already made in this transaction, judged by the usage before and after it: refused
// when it grew the stored bytes and stored + reserved now exceed the limit.
std::optional<QuotaExcess> check_growth(const Usage& before, const Usage& after);

// `requested` more bytes (a blob reservation, a share bundle) before they are written: refused
// when used + requested exceeds the limit. Nothing requested is never refused.
std::optional<QuotaExcess> check_request(const Usage& now, long long requested);

// One id of a blob check: its stated size, whether the blob is already uploaded, and the size
// of its active reservation (0 when none).
struct BlobAsk {
    long long stored_size = 0;
    bool present = false;
    long long reserved = 0;
};

// The bytes a blob check adds to usage: nothing for an uploaded blob; for a missing one the
// growth of its stated size over an existing reservation (re-checking never reserves twice,
// and a smaller re-check does not give bytes back before the reservation is replaced).
long long reservation_growth(const std::vector<BlobAsk>& asks);

}  // namespace pouch::rules
