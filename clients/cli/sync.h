// sync.h -- the sync engine of one folder and its pouch (docs/CLI.md "How a folder syncs"):
// pull applies the pouch's event feed to the folder (verified, decrypted, written
// atomically), push turns local changes into signed, encrypted commits (chunks through blob
// check and upload, batches of at most 50 ops written to the folder state before they are
// sent), and both keep both versions of a file changed on two sides.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "clients/cli/api.h"
#include "clients/cli/folder_state.h"
#include "clients/cli/progress.h"
#include "clients/cli/revision.h"
#include "clients/cli/scan.h"
#include "clients/cli/trust.h"

namespace pouch::cli {

struct SyncStats {
    int downloaded = 0, removed = 0, uploaded = 0, deleted = 0, renamed = 0, conflicts = 0;
    int refused = 0;
    long long bytes_sent = 0;  // blob bytes uploaded
    int chunks_reused = 0;     // chunks the server already held
    std::vector<std::string> messages;
};

class SyncEngine {
  public:
    SyncEngine(Api& api, Trust& trust, const Config& cfg, DeviceState& device, FolderState& state,
               Progress& progress);

    // Applies every event after the folder's position, then reports it (cursor).
    void pull();
    // Sends the local changes under `scope` (a relative path inside the folder; "" = all).
    void push(const std::string& scope = "");
    // Waits up to `seconds` for a new event of the pouch (long-poll); `stop` is polled about
    // once a second and ends the wait early when it returns true. True when events arrived.
    bool wait_for_events(int seconds, const std::function<bool()>& stop);

    const SyncStats& stats() const { return stats_; }

  private:
    struct Planned;
    struct LocalStatus;

    void load_pouch();
    void full_resync();
    bool apply_events_page();
    std::optional<Revision> fetch_head(const std::string& artifact_id);
    void apply_head(const Revision& h);
    // apply_head of a revision whose key this device may lack: such a file is reported and
    // skipped (the command then exits 1), the others are applied.
    void apply_readable(const rapidjson::Value& rev);
    // fetch_head + apply_head of a changed artifact, or unreadable() when its key is missing.
    void read_changed(const std::string& artifact_id);
    // Reports the artifact and keeps it in the folder state for retry_unreadable.
    void unreadable(const std::string& artifact_id, const std::string& why);
    // Reads again what earlier pulls could not (the cursor has moved past it), after fetching
    // this member's envelopes once.
    void retry_unreadable();
    void apply_put(const Revision& h, const std::string* prev_local);
    void apply_delete(const Revision& h, const std::string& local);
    void write_content(const std::string& local, const Revision& h);
    LocalStatus local_status(const std::string& local, const FileEntry& e);
    std::string conflict_copy(const std::string& local, const std::string& loses_to);
    void ack();

    bool resend_pending();
    std::vector<Planned> plan(const std::string& scope);
    void send_batches(std::vector<Planned>& ops);
    void build_put(Planned& p);
    void upload_chunks(Planned& p, const std::string& path);
    void commit_pending();
    void save();

    Api& api_;
    Trust& trust_;
    const Config& cfg_;
    DeviceState& device_;
    FolderState& s_;
    Progress& progress_;
    SyncStats stats_;
    long long key_gen_ = 0, high_water_ = 0;
    std::vector<std::string> to_refetch_;  // artifacts whose commit met a newer head
    bool keys_stale_ = false;
};

}  // namespace pouch::cli
