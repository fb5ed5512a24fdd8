// sync.h -- the sync engine of one folder and its pouch (docs/CLI.md "How a folder syncs"):
// pull applies the pouch's event feed to the folder (verified, decrypted, written
// atomically through the folder's FolderRoot handle), push turns local changes into signed,
// encrypted commits (chunks through blob check and upload, batches of at most 50 ops written
// to the folder's journal before they are sent), and both keep both versions of a file
// changed on two sides. An item that cannot be applied or sent is skipped, reported and
// remembered; the rest goes on (docs/CLI.md "Skipped items").
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "clients/cli/api.h"
#include "clients/cli/files.h"
#include "clients/cli/folder_state.h"
#include "clients/cli/progress.h"
#include "clients/cli/revision.h"
#include "clients/cli/scan.h"
#include "clients/cli/trust.h"
#include "common/clientfmt/chunk.h"

namespace pouch::cli {

struct SyncStats {
    int downloaded = 0, removed = 0, uploaded = 0, deleted = 0, renamed = 0, conflicts = 0;
    int refused = 0;           // ops the server refused (exit 1)
    int skipped = 0;           // items skipped here (exit 7), each with a message
    long long bytes_sent = 0;  // blob bytes uploaded
    int chunks_reused = 0;     // chunks the server already held
    std::vector<std::string> messages;
};

class SyncEngine {
  public:
    SyncEngine(Api& api, Trust& trust, const Config& cfg, DeviceState& device, FolderState& state,
               Progress& progress);
    ~SyncEngine();  // drops the engine's calls still in flight (a run that failed half-way)
    SyncEngine(const SyncEngine&) = delete;
    SyncEngine& operator=(const SyncEngine&) = delete;

    // Applies every event after the folder's position, then reports it (cursor).
    void pull();
    // Sends the local changes under `scope` (a relative path inside the folder; "" = all).
    void push(const std::string& scope = "");
    // Waits up to `seconds` for a new event of the pouch (long-poll); `stop` is polled about
    // once a second and ends the wait early when it returns true, and so does `wake_fd` (when
    // >= 0) at once when it becomes readable. True when events arrived.
    bool wait_for_events(int seconds, const std::function<bool()>& stop, int wake_fd = -1);

    const SyncStats& stats() const { return stats_; }

  private:
    struct Planned;
    struct LocalStatus;
    class PageOpener;

    void load_pouch();
    void full_resync();
    bool apply_events_page();
    std::optional<Revision> fetch_head(const std::string& artifact_id);
    // Throws ItemSkipped when the revision cannot be applied here (its name, its path, a
    // permission); the callers below turn that into skip().
    void apply_head(const Revision& h);
    // apply_head of a listed head; an item that cannot be read or written here is skipped
    // (reported, remembered; the command then exits 7), the others are applied.
    // With `opened` (PageOpener::get of `rev`), what it holds is applied or thrown instead
    // of opening `rev` here.
    void apply_readable(const rapidjson::Value& rev, PageOpener* page = nullptr, size_t i = 0);
    // fetch_head + apply_head of a changed artifact, or skip() when it cannot be applied.
    void read_changed(const std::string& artifact_id);
    // apply_head of the revision an event brought (null: read_changed), or skip().
    void read_event(const std::string& artifact_id, const rapidjson::Value* rev);
    // Reports the artifact and keeps it in the folder state for retry_skipped.
    void skip(const std::string& artifact_id, const std::string& why);
    // Reports what cannot be sent this time -- a local file, or every write of a held pouch
    // (may_write) -- once per run; the next push tries it again.
    void skip_local(const std::string& why);
    // Reads again what earlier pulls skipped (the cursor has moved past it) and this run has
    // not read yet, after fetching this member's envelopes once when a key was missing.
    void retry_skipped();
    void apply_put(const Revision& h, const std::string* prev_local);
    // apply_put at the head's name, by what is there: another artifact's tracked file (two
    // artifacts claim one name: the larger artifact id gives way, on every device alike, kept
    // under a conflict name the next push gives it on the server too), this artifact's
    // tracked file (a local change there becomes a conflict copy, unless it is the same
    // change), or an untracked file (adopted when it is the same, else a conflict copy).
    void apply_name_clash(const Revision& h, const FileEntry& ours);
    void apply_over_tracked(const Revision& h, FileEntry& e);
    void apply_over_untracked(const Revision& h);
    void apply_delete(const Revision& h, const std::string& local);
    void write_content(const std::string& local, const Revision& h);
    LocalStatus local_status(const std::string& local, const FileEntry& e);
    std::string conflict_copy(const std::string& local, const std::string& loses_to);
    // A name `<stem> (conflict <label> <date>[ n])<.ext>` for `name` that no file has here.
    std::string free_conflict_name(const std::string& name, const std::string& label);
    void ack();

    // Whether this push may write to the pouch now (Trust::write_key on its current
    // generation), asked before anything is resent, read for sending, sealed or uploaded: a
    // rollback throws (exit 5); a key this device lacks, or one made by a member since removed,
    // holds every write of the pouch -- said once as a skipped item (exit 7), the local changes
    // and the journal stay for a later run.
    bool may_write();
    // Resends the journal's commits sealed under the current generation; drops the others
    // unsent (they are planned again from the files on disk).
    bool resend_pending();
    // The ops of a push: puts for changed tracked files (plan_changed, which also lists the
    // tracked files gone), puts for new ones -- a move when its content is a gone file's
    // (plan_new, which names the gone files it moved) -- and deletes for the rest.
    std::vector<Planned> plan(const std::string& scope);
    std::vector<std::string> plan_changed(const std::map<std::string, LocalFile>& files,
                                          const std::string& scope, std::vector<Planned>& out);
    std::set<std::string> plan_new(const std::map<std::string, LocalFile>& files,
                                   const std::string& scope,
                                   const std::vector<std::string>& missing,
                                   std::vector<Planned>& out);
    void send_batches(std::vector<Planned>& ops);
    void build_put(Planned& p);
    // The content of a put: the file read inline, or its chunks uploaded (upload_chunks); sets
    // the intent's fingerprint and chunks.
    clientfmt::Content put_content(Planned& p);
    // The journal intent of a put once its op is built: the entry the file will have.
    void record_put(Planned& p, const std::string& revision_id, const clientfmt::Content& c);
    void build_delete(Planned& p);
    // The heads of artifacts whose commit lost (stale base, not found), applied here.
    void apply_lost_heads();
    void upload_chunks(Planned& p, const std::string& name);
    // The blob pipeline of a push: a sealed chunk waits in unchecked_ for one blobs/check of
    // up to kCheckBatch chunks, then the missing ones are uploaded, several at once (Api::start);
    // at most kHeldBytes of sealed chunks are held at a time. Each chunk enters the chunk cache
    // when the server holds it. flush_chunks() returns once every queued chunk is stored.
    struct Sealed;
    void queue_chunk(std::string hash, clientfmt::SealedChunk sc);
    void check_queued();
    void upload(const std::shared_ptr<Sealed>& c);
    void stored(const Sealed& c);
    void flush_chunks();
    void commit_pending();  // sends s_.pending.front() and records its answer
    // Sends the journal's last commit while the push goes on; its answer is recorded when it
    // comes (record_commit). At most kCommitsInFlight are sent and unanswered.
    void start_commit();
    void record_commit(const std::string& operation_id, ApiAnswer& a);
    // One op's result of a commit answer into the folder state (applied), the artifacts to read
    // again (conflict, not found, missing blob), or the messages (refused).
    void record_result(const rapidjson::Value& r, const OpIntent& in);
    // The folder state is written when due -- at most about once a second, and never taking
    // more than a tenth of the run (a state of 100,000 files is tens of MB) -- and always by
    // save_now() at the end of a pull and of a push. Crash safety does not depend on it: every
    // commit is in the journal before it is sent, and what a lost write forgets (files written
    // by a pull, the event position) is found again by the next pull (docs/CLI.md).
    void save();
    void save_now();
    const crypto::P256PrivateKey& sign_key();  // loaded once per engine

    Api& api_;
    Trust& trust_;
    const Config& cfg_;
    DeviceState& device_;
    FolderState& s_;
    Progress& progress_;
    FolderRoot root_;
    SyncStats stats_;
    std::optional<crypto::P256PrivateKey> sign_key_;
    long long last_save_ms_ = 0, save_cost_ms_ = 0;
    std::set<std::string> read_this_run_;  // artifacts read (or skipped) by this run
    std::set<std::string> said_;           // local notes already given by this run
    long long key_gen_ = 0, high_water_ = 0;
    // The next events page's limit: 1000, or twice what the last page, cut at the inline
    // budget, could apply (apply_events_page), so that a backlog of large revisions is not
    // listed a thousand events at a time only to be cut after a few dozen.
    int events_limit_ = 1000;
    std::vector<std::string> to_refetch_;  // artifacts whose commit met a newer head
    bool keys_stale_ = false;
    std::vector<std::shared_ptr<Sealed>> unchecked_;
    size_t held_bytes_ = 0;
    int commits_in_flight_ = 0;
    bool pulled_ = false;           // pull() ran in this engine (its load_pouch is fresh)
    long long confirmed_gen_ = -1;  // a commit under it was answered, not stale_key_gen
};

}  // namespace pouch::cli
