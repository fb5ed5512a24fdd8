// folder_state.h -- what the CLI remembers of one synced folder (folders/<id>.json): its
// pouch and the last event applied, every tracked file with the revision it matches (indexed
// by artifact id too), the chunks it knows are on the server, the items it had to skip, and
// the commit batches in flight. A batch is appended to the folder's journal
// (folders/<id>.journal) before it is sent, so a killed `pouch` resends exactly that body and
// nothing twice, while the state file itself is rewritten only now and then (docs/CLI.md
// "Crash safety"). Both are the CLI's own files, read with limits sized for a folder of
// millions of files, not with the service's parse budget for hostile request bodies.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "clients/cli/config.h"
#include "common/clientfmt/artifact.h"

namespace pouch::cli {

struct FileEntry {
    std::string artifact_id, revision_id;  // the head this local file matches
    std::string remote_name;               // content.name on the server (NFC)
    std::string fp;                        // content fingerprint (scan.h)
    long long size = 0;
    long long mtime_ns = 0;  // local stat when last matched
    long long mode = 0644;
    std::vector<clientfmt::ChunkRef> chunks;
};

// The tracked files by local name, with an index by artifact id (a pull looks artifacts up by
// id once per event: a linear search would make a pull of n files cost n^2). Entries may be
// changed in place through the iterators, except their artifact_id: that goes through set().
class FileTable {
  public:
    using Map = std::map<std::string, FileEntry>;
    Map::iterator begin() { return by_name_.begin(); }
    Map::iterator end() { return by_name_.end(); }
    Map::const_iterator begin() const { return by_name_.begin(); }
    Map::const_iterator end() const { return by_name_.end(); }
    Map::iterator find(const std::string& name) { return by_name_.find(name); }
    Map::const_iterator find(const std::string& name) const { return by_name_.find(name); }
    size_t count(const std::string& name) const { return by_name_.count(name); }
    size_t size() const { return by_name_.size(); }
    bool empty() const { return by_name_.empty(); }
    FileEntry& at(const std::string& name) { return by_name_.at(name); }
    const FileEntry& at(const std::string& name) const { return by_name_.at(name); }

    void set(const std::string& name, FileEntry e);  // inserts or replaces
    void erase(const std::string& name);             // absent is fine
    // The local name of an artifact (nullptr when untracked); valid until the next change.
    const std::string* name_of(const std::string& artifact_id) const;

  private:
    Map by_name_;
    std::unordered_map<std::string, std::string> by_artifact_;
};

// One op of the batch in flight and what the folder state becomes when it is applied.
struct OpIntent {
    std::string type;             // put | delete
    std::string local_name;       // the entry it writes (put) or drops (delete)
    std::string prev_local_name;  // a rename's old local name ("" otherwise)
    FileEntry entry;              // for put: the entry once applied (revision_id = the new one)
};

struct PendingCommit {
    std::string operation_id;
    std::string body;  // exactly the bytes sent (and resent)
    std::vector<OpIntent> intents;
    // Its journal line (to_json() and a newline) once append_pending wrote it, kept for the
    // journal's rewrites (save_folder_state): a batch is never changed once journaled.
    std::shared_ptr<const std::string> line;

    std::string to_json() const;
    // The key generation its ops were sealed under (one per batch); 0 when the body names none.
    long long key_gen() const;
};

struct FolderState {
    std::string root;  // absolute path
    std::string pouch_id, epoch;
    long long seq = 0;                                       // last event applied
    FileTable files;                                         // by local name
    std::map<std::string, std::string> conflict_of;          // conflict copy -> revision it lost to
    std::map<std::string, clientfmt::ChunkRef> chunk_cache;  // plaintext hash -> uploaded chunk
    // Artifacts this folder could not apply when the cursor passed them (a key this device
    // lacked, a symlink or a file where a directory belongs, a name that is not safe, ...):
    // artifact id -> why. Every pull reads them again.
    std::map<std::string, std::string> skipped;
    // Commits written to the journal whose answers the state file may not hold yet, oldest
    // first: a run resends them (same operation_id, same body) before anything else.
    std::vector<PendingCommit> pending;

    // The state file's JSON (without `pending`, which lives in the journal).
    std::string to_json() const;
    // Throws CliError when the text is not a folder state (an old file's `pending` batch and
    // `unreadable` list are read too).
    static FolderState from_json(const std::string& text);

    const std::string* local_name_of(const std::string& artifact_id) const {
        return files.name_of(artifact_id);
    }
    size_t pending_ops() const;  // ops in the pending commits
};

// The CLI's own JSON files (folder states, their journals) are at most this big.
constexpr size_t kMaxStateBytes = size_t{1} << 30;

// folders/<32 hex of SHA-256(root)>.json (and .journal next to it)
std::string folder_state_path(const Config& cfg, const std::string& root);
std::string folder_journal_path(const Config& cfg, const std::string& root);
// The state and its journal's pending commits (a journal's torn last line -- a batch never
// sent -- is dropped).
std::optional<FolderState> load_folder_state(const Config& cfg, const std::string& root);
// Writes the state file atomically, then leaves the journal holding exactly s.pending.
void save_folder_state(const Config& cfg, const FolderState& s);
// Adds a commit to s.pending and appends it durably (fdatasync) to the journal: called before
// the commit is sent.
void append_pending(const Config& cfg, FolderState& s, PendingCommit pc);
// Every bound folder (for status).
std::vector<FolderState> all_folder_states(const Config& cfg);
// The roots of every bound folder, read without parsing the whole of each state file (for
// finding the folder a path belongs to).
std::vector<std::string> all_folder_roots(const Config& cfg);

}  // namespace pouch::cli
