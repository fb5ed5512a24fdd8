// folder_state.h -- what the CLI remembers of one synced folder (folders/<id>.json): its
// pouch and the last event applied, every tracked file with the revision it matches, the
// chunks it knows are on the server, what it could not read, and the commit batch in flight. A
// batch is written here before it is sent, so a killed `pouch` resends exactly that body and
// nothing twice.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
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
};

struct FolderState {
    std::string root;  // absolute path
    std::string pouch_id, epoch;
    long long seq = 0;                                       // last event applied
    std::map<std::string, FileEntry> files;                  // by local name
    std::map<std::string, std::string> conflict_of;          // conflict copy -> revision it lost to
    std::map<std::string, clientfmt::ChunkRef> chunk_cache;  // plaintext hash -> uploaded chunk
    // Artifacts whose head needs a key this device lacked when the cursor passed them: read
    // again at every pull (an envelope may have been sealed to this member since).
    std::set<std::string> unreadable;
    std::optional<PendingCommit> pending;

    std::string to_json() const;
    static FolderState from_json(const std::string& text);

    const std::string* local_name_of(const std::string& artifact_id) const;
};

// folders/<32 hex of SHA-256(root)>.json
std::string folder_state_path(const Config& cfg, const std::string& root);
std::optional<FolderState> load_folder_state(const Config& cfg, const std::string& root);
void save_folder_state(const Config& cfg, const FolderState& s);
// Every bound folder (for status and for finding the folder a path belongs to).
std::vector<FolderState> all_folder_states(const Config& cfg);

}  // namespace pouch::cli
