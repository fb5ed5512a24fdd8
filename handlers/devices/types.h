// types.h -- the devices group's requests, answers and rows, each described once: as JSON
// (json/described.h: the schema, the decoder, the writer) and, where a statement returns it,
// as a row (db/query.h reads a described struct by its JSON names).
#pragma once

#include <optional>
#include <string>
#include <tuple>

#include "common/db/query.h"
#include "common/json/described.h"

namespace pouch::devices {

namespace js = json::schema;

// ---- requests --------------------------------------------------------------------------------

struct RenameRequest {
    std::string name;
    static auto json_fields() {
        return std::tuple{json::field("name", &RenameRequest::name, js::label())};
    }
};

struct CursorRequest {
    std::string pouch_id;
    std::string epoch;
    long long acked_seq = 0;
    static auto json_fields() {
        return std::tuple{
            json::field("pouch_id", &CursorRequest::pouch_id, js::uuid()),
            json::field("epoch", &CursorRequest::epoch, js::uuid()),
            json::field("acked_seq", &CursorRequest::acked_seq,
                        js::integer().min(0).max(js::kMaxSafeInt)),
        };
    }
};

// ---- answers (and the rows they are read from) -------------------------------------------------

// A device as GET /v1/devices lists it (decisions §6).
struct Device {
    std::string id, name, member_id, os, arch, cli_version, key_storage, created_at;
    std::optional<std::string> last_seen_at, revoked_at;
    bool rotation_pending = false;
    static auto json_fields() {
        return std::tuple{
            json::field("id", &Device::id),
            json::field("name", &Device::name),
            json::field("member_id", &Device::member_id),
            json::field("os", &Device::os),
            json::field("arch", &Device::arch),
            json::field("cli_version", &Device::cli_version),
            json::field("key_storage", &Device::key_storage),
            json::field("created_at", &Device::created_at),
            json::field("last_seen_at", &Device::last_seen_at),
            json::field("revoked_at", &Device::revoked_at),
            json::field("rotation_pending", &Device::rotation_pending),
        };
    }
};

// A listed device and its page key (microseconds of created_at).
struct DeviceRow : Device {
    long long created_us = 0;
    static auto db_columns() {
        return std::tuple_cat(Device::json_fields(),
                              std::tuple{db::col("created_us", &DeviceRow::created_us)});
    }
};

struct DeviceName {
    std::string id, name;
    static auto json_fields() {
        return std::tuple{json::field("id", &DeviceName::id), json::field("name", &DeviceName::name)};
    }
};

struct RevokeAnswer {
    bool revoked = true;
    bool rotation_pending = false;
    static auto json_fields() {
        return std::tuple{json::field("revoked", &RevokeAnswer::revoked),
                          json::field("rotation_pending", &RevokeAnswer::rotation_pending)};
    }
};

struct CursorAnswer {
    std::string pouch_id, epoch;
    long long acked_seq = 0;
    static auto json_fields() {
        return std::tuple{json::field("pouch_id", &CursorAnswer::pouch_id),
                          json::field("epoch", &CursorAnswer::epoch),
                          json::field("acked_seq", &CursorAnswer::acked_seq)};
    }
};

}  // namespace pouch::devices
