// backup.h -- what `pouchctl backup` and `pouchctl restore` share: their options, running
// pgBackRest, and copying the blob directory to and from the backup repository
// (docs/OPERATIONS.md "Backup and restore").
#pragma once

#include <string>
#include <vector>

#include "tools/pouchctl/commands.h"

namespace pouchctl::backup {

struct Options {
    std::string config = "/etc/pgbackrest.conf";  // pgBackRest's configuration file
    std::string stanza = "pouch";
    std::string blob_dir;           // POUCH_BLOB_DIR, else /var/lib/pouch/blobs
    std::string blob_repo;          // <repo1-path>/pouch-blobs unless given
    std::vector<std::string> rest;  // what the command itself parses
};

// Parses --config, --stanza, --blob-dir and --blob-repo (each "--x V" or "--x=V"); everything
// else goes to `rest`. False (with a message) when an option lacks its value or the blob
// repository cannot be found from the configuration.
bool parse_options(const Args& args, Options* out, const char* command);

// Runs pgbackrest with --config and --stanza of `o` and then `args`; its exit status (127 when
// it cannot be started). Its output goes to ours.
int run_pgbackrest(const Options& o, const std::vector<std::string>& args);

struct CopyCount {
    long files = 0;  // copied
    long long bytes = 0;
    long kept = 0;  // already in the target with the same size
};

// Copies every blob file of src (<src>/<account uuid>/<blob id>; the tmp/ directory of
// uploads in flight and dot files are left) missing from dst, or present with another size,
// to dst: into a temporary name (.<id>.<pid>.copy), fsynced, renamed, the directory fsynced,
// so a copy that is there is whole and durable, and concurrent copies do not collide. Blobs are
// immutable (named by their hash), so a file already there with the same size is the same file.
// False (with a message) on the first failure.
bool copy_blobs(const std::string& src, const std::string& dst, CopyCount* count);

}  // namespace pouchctl::backup
