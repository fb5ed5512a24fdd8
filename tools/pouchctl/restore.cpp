// restore.cpp -- `pouchctl restore`: puts the blobs of the backup repository back into the
// blob directory, then has pgBackRest restore the database directory with recovery to the end
// of the archived WAL (or to --target TIME). PostgreSQL replays the WAL when it starts next;
// the handlers start after it (docs/OPERATIONS.md "Backup and restore"). Relies on
// backup.h (pgbackrest, the blob copy).
#include <cstdio>
#include <string>
#include <vector>

#include "tools/pouchctl/backup.h"

namespace pouchctl {

namespace {

constexpr const char* kUsage =
    "usage: pouchctl restore [--target TIME] [--delta] [--config FILE] [--stanza NAME]\n"
    "                        [--blob-dir DIR] [--blob-repo DIR]\n"
    "  Stop the handlers and PostgreSQL first. Restores the blobs, then the database to the\n"
    "  latest archived WAL (or to TIME, e.g. \"2026-11-27 14:05:00+00\"). --delta restores\n"
    "  over an existing data directory (pgBackRest's --delta) instead of an empty one.\n";

}  // namespace

int cmd_restore(const Args& args) {
    backup::Options o;
    if (!backup::parse_options(args, &o, "restore")) return 2;
    std::string target;
    bool delta = false;
    for (size_t i = 0; i < o.rest.size(); ++i) {
        const std::string& a = o.rest[i];
        if (a == "--target" && i + 1 < o.rest.size()) {
            target = o.rest[++i];
        } else if (a.rfind("--target=", 0) == 0) {
            target = a.substr(9);
        } else if (a == "--delta") {
            delta = true;
        } else {
            std::fputs(kUsage, stderr);
            return 2;
        }
    }
    // Blobs first: every blob the restored database can name was copied to the repository
    // before the WAL that names it was archived, so once they are back, whatever point the
    // recovery stops at finds its blobs. Blobs newer than that point are unreferenced files
    // that `pouchctl gc` removes after a day.
    backup::CopyCount n;
    if (!backup::copy_blobs(o.blob_repo, o.blob_dir, &n)) {
        std::fprintf(stderr, "pouchctl restore: copying the blobs back from %s failed\n",
                     o.blob_repo.c_str());
        return 1;
    }
    std::vector<std::string> pg = {"--log-level-console=warn"};
    if (delta) pg.push_back("--delta");
    if (!target.empty()) {
        pg.push_back("--type=time");
        pg.push_back("--target=" + target);
        pg.push_back("--target-action=promote");
    }
    pg.push_back("restore");
    if (int rc = backup::run_pgbackrest(o, pg)) {
        std::fprintf(stderr,
                     "pouchctl restore: pgbackrest restore failed (%d); the blobs are back in %s\n",
                     rc, o.blob_dir.c_str());
        return 1;
    }
    std::printf(
        "{\"blobs_restored\":%ld,\"bytes_restored\":%lld,\"blobs_already_there\":%ld,\"recovery\":"
        "\"%s\"}\n",
        n.files, n.bytes, n.kept, target.empty() ? "latest" : "time");
    std::fprintf(
        stderr,
        "pouchctl restore: done. Start PostgreSQL (it replays the archived WAL, then opens "
        "for writes), then the handlers.\n");
    return 0;
}

}  // namespace pouchctl
