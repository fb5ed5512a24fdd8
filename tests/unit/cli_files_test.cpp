// cli_files_test.cpp -- the `pouch` CLI's file system side (issue 22): the one safe-path rule,
// the file-name form of a label and conflict names, FolderRoot's writes that never follow a
// symlink nor chmod a directory that exists, the modes written, the scan's report, and the
// folder state: its artifact index, its journal of commits in flight, and a state of 100,000
// files read with the CLI's own limits.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "clients/cli/config.h"
#include "clients/cli/errors.h"
#include "clients/cli/files.h"
#include "clients/cli/folder_state.h"
#include "clients/cli/scan.h"
#include "common/clientfmt/artifact.h"
#include "common/crypto/hash.h"
#include "common/crypto/random.h"
#include "tests/unit/cli_test_dir.h"

using namespace pouch;
using namespace pouch::cli;

namespace {

using pouch::testing::TempDir;

int mode_of(const std::string& path) {
    struct stat st {};
    EXPECT_EQ(::lstat(path.c_str(), &st), 0) << path;
    return static_cast<int>(st.st_mode & 07777);
}

bool present(const std::string& path) {
    struct stat st {};
    return ::lstat(path.c_str(), &st) == 0;
}

std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

// FolderRoot::write_file with fixed bytes.
struct stat put(FolderRoot& r, const std::string& rel, const std::string& data, int mode = 0644) {
    return r.write_file(
        rel, [&](int fd) { write_all_fd(fd, data, rel); }, mode, 1700000000123);
}

// The message of the ItemSkipped that f throws ("" when it throws none).
template <typename F>
std::string skipped_by(F f) {
    try {
        f();
    } catch (const ItemSkipped& e) {
        EXPECT_EQ(e.code, kExitSkipped);
        return e.what();
    }
    return "";
}

// Restores the process umask at the end of a test that changes it.
struct UmaskGuard {
    mode_t old;
    explicit UmaskGuard(mode_t m) : old(::umask(m)) {}
    ~UmaskGuard() { ::umask(old); }
};

}  // namespace

// ---- names ----------------------------------------------------------------------------------

TEST(CliSafePath, RelativeUtf8PathsWithoutDotSegmentsControlsOrOverlongPartsPass) {
    using clientfmt::safe_relative_path;
    for (const char* ok : {"a", "a/b.txt", "dir/sub/.hidden", "notes/α and ω.md", "back\\slash",
                           "emoji 😀/x", "a b/c"})
        EXPECT_TRUE(safe_relative_path(ok)) << ok;
    for (const char* bad : {"",
                            "/abs",
                            "../x",
                            "a/../b",
                            "x/../../../../etc/passwd",
                            "a/./b",
                            ".",
                            "..",
                            "a//b",
                            "a/",
                            "tab\there",
                            "nl\nx",
                            "esc\x1b[8m",
                            "del\x7f",
                            "bad\xff",
                            "overlong \xc0\xaf",
                            "overlong3 \xe0\x80\xaf",
                            "surrogate \xed\xa0\x80",
                            "above \xf4\x90\x80\x80",
                            "cut \xe2\x82"})
        EXPECT_FALSE(safe_relative_path(bad)) << bad;
    EXPECT_FALSE(safe_relative_path(std::string("nul\0x", 5)));
}

TEST(CliSafePath, SegmentsUpTo255BytesAndPathsUpTo4095BytesPass) {
    using clientfmt::safe_relative_path;
    EXPECT_TRUE(safe_relative_path(std::string(255, 'a')));
    EXPECT_FALSE(safe_relative_path(std::string(256, 'a')));
    // 127 two-byte characters and one byte: 255 bytes; one more character: 257.
    std::string alpha;
    for (int i = 0; i < 127; ++i) alpha += "\xce\xb1";
    EXPECT_TRUE(safe_relative_path(alpha + "a"));
    EXPECT_FALSE(safe_relative_path(alpha + "\xce\xb1"));
    std::string path;
    while (path.size() + 200 < 4095) path += std::string(199, 'd') + "/";
    path += std::string(4095 - path.size(), 'f');
    ASSERT_EQ(path.size(), 4095u);
    EXPECT_TRUE(safe_relative_path(path));
    EXPECT_FALSE(safe_relative_path(path + "f"));
}

TEST(CliSafePath, TheLocalRuleAlsoRefusesPouchTemporaryNames) {
    EXPECT_TRUE(safe_local_path("a/b"));
    EXPECT_TRUE(safe_local_path("a/x.pouch-tmp-1"));
    EXPECT_FALSE(safe_local_path(".pouch-tmp-abc"));
    EXPECT_FALSE(safe_local_path("a/.pouch-tmp-abc/b"));
    EXPECT_FALSE(safe_local_path("../a"));
}

TEST(CliLabels, ALabelIsReducedToTheFileNameAlphabet) {
    using clientfmt::label_file_form;
    EXPECT_EQ(label_file_form("laptop-b"), "laptop-b");
    EXPECT_EQ(label_file_form("Ada's MacBook Pro"), "Ada_s MacBook Pro");
    EXPECT_EQ(label_file_form("Ada\xe2\x80\x99s"), "Ada_s");  // U+2019: one character, one '_'
    EXPECT_EQ(label_file_form("x/../../../../../../SOMEWHERE/PWNED"),
              "x_.._.._.._.._.._.._SOMEWHERE_PW");                          // 32 characters
    EXPECT_EQ(label_file_form("evil\xe2\x80\xaegpj.exe"), "evil_gpj.exe");  // U+202E
    EXPECT_EQ(label_file_form("a\x1b[8mb"), "a__8mb");
    EXPECT_EQ(label_file_form("bad\xff\xfe"), "bad__");  // one '_' per stray byte
    EXPECT_EQ(label_file_form("  ..name.. "), "name");
    EXPECT_EQ(label_file_form(" . .. "), "device");
    EXPECT_EQ(label_file_form(""), "device");
    EXPECT_EQ(label_file_form("/"), "_");
    EXPECT_EQ(label_file_form(std::string(40, 'z')), std::string(32, 'z'));
    // Cut first, trimmed after: the 33rd character is gone before the trim.
    EXPECT_EQ(label_file_form(std::string(31, 'z') + " x"), std::string(31, 'z'));
}

TEST(CliLabels, AConflictNameStaysInItsDirectoryWhateverTheLabel) {
    using clientfmt::conflict_name;
    EXPECT_EQ(conflict_name("f1.desktop", "x/../../../../../../SOMEWHERE/PWNED", "2026-11-25"),
              "f1 (conflict x_.._.._.._.._.._.._SOMEWHERE_PW 2026-11-25).desktop");
    EXPECT_EQ(conflict_name("d/e/notes.txt", "\xe2\x80\xae..\n", "2026-11-25 2"),
              "d/e/notes (conflict _.._ 2026-11-25 2).txt");
    EXPECT_EQ(conflict_name("a.txt", "", "2026-11-25"), "a (conflict device 2026-11-25).txt");
    // A name whose segment would grow past 255 bytes has no safe conflict name.
    EXPECT_THROW(conflict_name(std::string(240, 'n') + ".txt", "laptop", "2026-11-25"),
                 clientfmt::FormatError);
    EXPECT_THROW(conflict_name("../x", "laptop", "2026-11-25"), clientfmt::FormatError);
}

// ---- FolderRoot ---------------------------------------------------------------------------

TEST(CliFolderRoot, WritesFilesAndMakesDirectories0755WhateverTheUmask) {
    TempDir d;
    UmaskGuard u(077);
    FolderRoot r(d.path);
    struct stat st = put(r, "a/b/c.txt", "hello", 0640);
    EXPECT_EQ(slurp(d.at("a/b/c.txt")), "hello");
    EXPECT_EQ(mode_of(d.at("a")), 0755);
    EXPECT_EQ(mode_of(d.at("a/b")), 0755);
    EXPECT_EQ(mode_of(d.at("a/b/c.txt")), 0640);
    EXPECT_EQ(st.st_size, 5);
    EXPECT_EQ(st.st_mtim.tv_sec, 1700000000);
    EXPECT_EQ(st.st_mtim.tv_nsec, 123000000);
    put(r, "a/b/c.txt", "replaced");
    EXPECT_EQ(slurp(d.at("a/b/c.txt")), "replaced");
    EXPECT_EQ(std::system(("test -z \"$(find '" + d.path + "' -name '.pouch-tmp-*')\"").c_str()),
              0);
}

TEST(CliFolderRoot, WrittenModesNeverGrantGroupOrOtherWriteNorSpecialBits) {
    EXPECT_EQ(FolderRoot::file_mode(0777), 0755);
    EXPECT_EQ(FolderRoot::file_mode(04755), 0755);  // setuid dropped
    EXPECT_EQ(FolderRoot::file_mode(06777), 0755);  // setgid too
    EXPECT_EQ(FolderRoot::file_mode(01777), 0755);  // sticky too
    EXPECT_EQ(FolderRoot::file_mode(0666), 0644);
    EXPECT_EQ(FolderRoot::file_mode(0444), 0644);  // the owner can always write
    EXPECT_EQ(FolderRoot::file_mode(0), 0600);
    EXPECT_EQ(FolderRoot::file_mode(0600), 0600);
    EXPECT_EQ(FolderRoot::file_mode(0750), 0750);
    EXPECT_EQ(FolderRoot::file_mode(std::nullopt), 0644);  // the web app sends no mode
    EXPECT_EQ(FolderRoot::file_mode(-1), 0755);
    TempDir d;
    FolderRoot r(d.path);
    put(r, "x", "x", FolderRoot::file_mode(04777));
    EXPECT_EQ(mode_of(d.at("x")), 0755);
}

TEST(CliFolderRoot, ASymlinkedParentIsNeverFollowedNorChmodded) {
    TempDir d, outside;
    ASSERT_EQ(::chmod(outside.path.c_str(), 0700), 0);
    ASSERT_EQ(::mkdir(d.at("root").c_str(), 0755), 0);
    ASSERT_EQ(::symlink(outside.path.c_str(), d.at("root/lnk").c_str()), 0);
    ASSERT_EQ(::mkdir(d.at("root/real").c_str(), 0755), 0);
    ASSERT_EQ(::symlink(outside.path.c_str(), d.at("root/real/deeper").c_str()), 0);
    FolderRoot r(d.at("root"));
    std::string why = skipped_by([&] { put(r, "lnk/x", "pwned"); });
    EXPECT_NE(why.find("lnk is a symlink"), std::string::npos) << why;
    why = skipped_by([&] { put(r, "lnk/new/x", "pwned"); });
    EXPECT_NE(why.find("symlink"), std::string::npos) << why;
    why = skipped_by([&] { r.open_dir("lnk/x", true); });
    EXPECT_NE(why.find("lnk is a symlink"), std::string::npos) << why;
    why = skipped_by([&] { put(r, "real/deeper/x", "pwned"); });
    EXPECT_NE(why.find("real/deeper is a symlink"), std::string::npos) << why;
    EXPECT_FALSE(skipped_by([&] { r.rename_noreplace("real", "lnk/real"); }).empty());
    EXPECT_EQ(std::system(("test -z \"$(ls -A '" + outside.path + "')\"").c_str()), 0)
        << "something was created outside the folder";
    EXPECT_EQ(mode_of(outside.path), 0700);
    EXPECT_FALSE(r.lstat("lnk/x"));
    EXPECT_FALSE(skipped_by([&] { r.open_read("lnk/x"); }).empty());
    // The symlink itself is an entry of the folder, seen as what it is.
    auto st = r.lstat("lnk");
    ASSERT_TRUE(st);
    EXPECT_TRUE(S_ISLNK(st->st_mode));
}

TEST(CliFolderRoot, ASymlinkAtTheLeafIsReplacedNeverWrittenThroughAndNeverRead) {
    TempDir d, outside;
    outside.write("secret", "keep");
    ASSERT_EQ(::symlink(outside.at("secret").c_str(), d.at("f").c_str()), 0);
    FolderRoot r(d.path);
    std::string why = skipped_by([&] { r.open_read("f"); });
    EXPECT_NE(why.find("symlink"), std::string::npos) << why;
    put(r, "f", "new");  // rename replaces the link itself
    EXPECT_EQ(slurp(outside.at("secret")), "keep");
    EXPECT_EQ(slurp(d.at("f")), "new");
    EXPECT_EQ(mode_of(d.at("f")), 0644);
}

TEST(CliFolderRoot, AFileWhereADirectoryBelongsIsATypeClash) {
    TempDir d;
    d.write("a", "i am a file");
    FolderRoot r(d.path);
    std::string why = skipped_by([&] { put(r, "a/x", "x"); });
    EXPECT_NE(why.find("a is a file here, not a directory"), std::string::npos) << why;
    EXPECT_EQ(slurp(d.at("a")), "i am a file");
    ASSERT_EQ(::mkdir(d.at("dir").c_str(), 0755), 0);
    why = skipped_by([&] { put(r, "dir", "x"); });
    EXPECT_NE(why.find("a directory has its name here"), std::string::npos) << why;
    EXPECT_FALSE(r.lstat("a/x"));
}

TEST(CliFolderRoot, UnsafeNamesAreRefusedBeforeAnythingIsTouched) {
    TempDir d;
    ASSERT_EQ(::mkdir(d.at("root").c_str(), 0755), 0);
    FolderRoot r(d.at("root"));
    for (const char* bad :
         {"../x", "a/../../x", "/etc/x", ".pouch-tmp-x", "a/.pouch-tmp-y", "nl\nx", ""}) {
        EXPECT_FALSE(skipped_by([&] { put(r, bad, "x"); }).empty()) << bad;
        EXPECT_FALSE(skipped_by([&] { r.remove_file(bad); }).empty()) << bad;
        EXPECT_FALSE(r.lstat(bad)) << bad;
    }
    EXPECT_FALSE(present(d.at("x")));
    EXPECT_EQ(std::system(("test -z \"$(ls -A '" + d.at("root") + "')\"").c_str()), 0);
}

TEST(CliFolderRoot, ADirectoryThatExistsKeepsItsMode) {
    TempDir d;
    ASSERT_EQ(::mkdir(d.at("private").c_str(), 0700), 0);
    ASSERT_EQ(::chmod(d.at("private").c_str(), 0700), 0);
    ASSERT_EQ(::mkdir(d.at("shared").c_str(), 0777), 0);
    ASSERT_EQ(::chmod(d.at("shared").c_str(), 0777), 0);
    FolderRoot r(d.path);
    put(r, "private/x", "x");
    put(r, "shared/y", "y");
    r.open_dir("private", true);
    EXPECT_EQ(mode_of(d.at("private")), 0700);
    EXPECT_EQ(mode_of(d.at("shared")), 0777);
    make_dirs(d.at("private"), 0755);  // the helper for config and target folders too
    EXPECT_EQ(mode_of(d.at("private")), 0700);
    make_dirs(d.at("new/deeper"), 0700);
    EXPECT_EQ(mode_of(d.at("new/deeper")), 0700);
}

TEST(CliFolderRoot, AFailedWriteLeavesNoTemporaryAndNoFile) {
    TempDir d;
    FolderRoot r(d.path);
    EXPECT_THROW(r.write_file(
                     "sub/x", [](int) { throw CliError(kExitUnreachable, "the server went away"); },
                     0644, 0),
                 CliError);
    EXPECT_FALSE(present(d.at("sub/x")));
    EXPECT_EQ(std::system(("test -z \"$(find '" + d.path + "' -name '.pouch-tmp-*')\"").c_str()),
              0);
}

TEST(CliFolderRoot, PermissionDeniedIsASkippedItem) {
    TempDir d;
    ASSERT_EQ(::mkdir(d.at("ro").c_str(), 0555), 0);
    auto skipped = [&] {
        FolderRoot r(d.path);
        return !skipped_by([&] { put(r, "ro/x", "x"); }).empty();
    };
    if (::geteuid() != 0) {
        EXPECT_TRUE(skipped());
        return;
    }
    // Root ignores directory permissions (CI runs as root): the write is tried by a child that
    // has dropped to nobody, which owns the folder but may not write into `ro`.
    constexpr uid_t kNobody = 65534;
    ASSERT_EQ(::chown(d.path.c_str(), kNobody, kNobody), 0);
    ASSERT_EQ(::chown(d.at("ro").c_str(), kNobody, kNobody), 0);
    pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
        if (::setgid(kNobody) != 0 || ::setuid(kNobody) != 0) ::_exit(2);
        ::_exit(skipped() ? 0 : 1);
    }
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0)
        << "2: could not drop to nobody; 1: the write was not refused";
    EXPECT_FALSE(present(d.at("ro/x")));
}

TEST(CliFolderRoot, RenameNeverReplacesAndRemoveTakesOnlyFiles) {
    TempDir d;
    d.write("a", "A");
    d.write("b", "B");
    FolderRoot r(d.path);
    EXPECT_FALSE(r.rename_noreplace("a", "b"));
    EXPECT_EQ(slurp(d.at("b")), "B");
    EXPECT_TRUE(r.rename_noreplace("a", "sub/c"));
    EXPECT_EQ(slurp(d.at("sub/c")), "A");
    EXPECT_FALSE(present(d.at("a")));
    r.remove_file("sub/c");
    r.remove_file("sub/c");                                           // absent is fine
    r.remove_file("nowhere/c");                                       // so is an absent directory
    EXPECT_FALSE(skipped_by([&] { r.remove_file("sub"); }).empty());  // a directory stays
    EXPECT_TRUE(present(d.at("sub")));
}

// ---- scan -----------------------------------------------------------------------------------

TEST(CliScanReport, SymlinksAreLeftOutAndSaidUnsafeNamesAreSkipped) {
    TempDir d, outside;
    outside.write("o.txt", "outside");
    ASSERT_EQ(::mkdir(d.at("sub").c_str(), 0755), 0);
    d.write("sub/a.txt", "a");
    d.write("ctl\x01name", "c");
    ASSERT_EQ(::symlink(outside.path.c_str(), d.at("lnkdir").c_str()), 0);
    ASSERT_EQ(::symlink("/etc/passwd", d.at("sub/lnk").c_str()), 0);
    ASSERT_EQ(::mkfifo(d.at("fifo").c_str(), 0600), 0);
    ScanReport rep;
    auto files = scan_folder(d.path, &rep);
    ASSERT_EQ(files.size(), 1u);
    EXPECT_EQ(files.begin()->first, "sub/a.txt");
    EXPECT_EQ(rep.skipped.size(), 1u);
    EXPECT_EQ(rep.ignored.size(), 3u);
    FolderRoot r(d.path);
    EXPECT_TRUE(stat_file(r, "sub/a.txt"));
    EXPECT_FALSE(stat_file(r, "lnkdir/o.txt"));
    EXPECT_FALSE(stat_file(r, "sub/lnk"));
    EXPECT_EQ(digest_file(r, "sub/a.txt").fp,
              fingerprint_from_parts(1, crypto::blake3_256("a"), {}));
    EXPECT_FALSE(skipped_by([&] { digest_file(r, "lnkdir/o.txt"); }).empty());
}

// ---- folder state ---------------------------------------------------------------------------

TEST(CliFileTable, TheArtifactIndexFollowsEveryChange) {
    FileTable t;
    FileEntry a{"A", "r1", "a.txt", "fp", 1, 1, 0644, {}};
    FileEntry b{"B", "r1", "b.txt", "fp", 1, 1, 0644, {}};
    t.set("a.txt", a);
    t.set("b.txt", b);
    EXPECT_EQ(*t.name_of("A"), "a.txt");
    // A rename as the sync does it: the new name is written, then the old one dropped.
    t.set("moved.txt", a);
    t.erase("a.txt");
    EXPECT_EQ(*t.name_of("A"), "moved.txt");
    // Another artifact takes a name: the one it replaces is no longer found there.
    FileEntry c{"C", "r1", "b.txt", "fp", 1, 1, 0644, {}};
    t.set("b.txt", c);
    EXPECT_EQ(t.name_of("B"), nullptr);
    EXPECT_EQ(*t.name_of("C"), "b.txt");
    t.erase("b.txt");
    EXPECT_EQ(t.name_of("C"), nullptr);
    EXPECT_EQ(t.size(), 1u);
}

TEST(CliFolderState, AStateOf100000FilesReadsBackWithItsOwnLimits) {
    FolderState s;
    s.root = "/home/ada/Big";
    s.pouch_id = crypto::uuid_v4();
    s.epoch = crypto::uuid_v4();
    s.seq = 100000;
    for (int i = 0; i < 100000; ++i) {
        char name[32];
        std::snprintf(name, sizeof name, "d%03d/f%06d.txt", i % 100, i);
        s.files.set(name, FileEntry{crypto::uuid_v4(),
                                    crypto::uuid_v4(),
                                    name,
                                    "12:i:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
                                    12,
                                    1700000000000000000LL + i,
                                    0644,
                                    {}});
    }
    for (int i = 0; i < 2000; ++i) s.skipped[crypto::uuid_v4()] = "a is a file here";
    std::string text = s.to_json();
    auto start = std::chrono::steady_clock::now();
    FolderState back = FolderState::from_json(text);
    auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                  std::chrono::steady_clock::now() - start)
                  .count();
    EXPECT_EQ(back.files.size(), 100000u);
    EXPECT_EQ(back.skipped.size(), 2000u);
    const FileEntry& e = back.files.at("d042/f054242.txt");
    EXPECT_EQ(*back.local_name_of(e.artifact_id), "d042/f054242.txt");
    EXPECT_EQ(back.to_json(), text);
    std::printf("# a state of 100,000 files: %zu bytes, read in %lld ms\n", text.size(),
                static_cast<long long>(ms));
}

TEST(CliFolderState, DamageIsAClearErrorAtAnyDepthOrSize) {
    EXPECT_THROW(FolderState::from_json("{\"root\":1}"), CliError);
    EXPECT_THROW(FolderState::from_json("[]"), CliError);
    EXPECT_THROW(FolderState::from_json("{\"root\":\"\xff\"}"), CliError);
    // Nested a million levels deep: refused, without recursion (no stack overflow).
    std::string deep = "{\"root\":" + std::string(1000000, '[') + std::string(1000000, ']') + "}";
    EXPECT_THROW(FolderState::from_json(deep), CliError);
    try {
        FolderState::from_json("not json");
    } catch (const CliError& e) {
        EXPECT_NE(std::string(e.what()).find("a folder state file is damaged"), std::string::npos);
    }
}

TEST(CliFolderState, EarlierFilesKeepTheirBatchInFlightAndUnreadableList) {
    std::string old = R"({"v":1,"root":"/r","pouch_id":"p","epoch":"e","seq":3,"files":{},)"
                      R"("conflict_of":{},"chunk_cache":{},"unreadable":["A1"],)"
                      R"("pending":{"operation_id":"op","body":"{\"ops\":[]}","intents":[]}})";
    FolderState s = FolderState::from_json(old);
    ASSERT_EQ(s.pending.size(), 1u);
    EXPECT_EQ(s.pending[0].operation_id, "op");
    EXPECT_EQ(s.pending[0].body, R"({"ops":[]})");
    EXPECT_EQ(s.skipped.count("A1"), 1u);
}

TEST(CliFolderJournal, ACommitIsInTheJournalUntilAStateThatHoldsItsAnswerIsSaved) {
    TempDir d;
    Config cfg(d.at("cfg"));
    FolderState s;
    s.root = d.at("folder");
    s.pouch_id = "p";
    s.epoch = "e";
    save_folder_state(cfg, s);
    std::string journal = folder_journal_path(cfg, s.root);
    EXPECT_FALSE(present(journal));
    FileEntry e{"A", "r1", "a.txt", "fp", 1, 1, 0644, {}};
    append_pending(cfg, s,
                   PendingCommit{"op1", R"({"ops":["x\ny"]})", {{"put", "a.txt", "", e}}, {}});
    append_pending(cfg, s, PendingCommit{"op2", R"({"ops":[]})", {}, {}});
    // The line kept for the journal's rewrites is the one written.
    ASSERT_TRUE(s.pending[0].line);
    EXPECT_EQ(*s.pending[0].line, s.pending[0].to_json() + "\n");
    EXPECT_EQ(mode_of(journal), 0600);
    auto back = load_folder_state(cfg, s.root);
    ASSERT_TRUE(back);
    ASSERT_EQ(back->pending.size(), 2u);
    EXPECT_EQ(back->pending[0].body, R"({"ops":["x\ny"]})");
    EXPECT_EQ(back->pending[0].intents[0].entry.artifact_id, "A");
    EXPECT_EQ(back->pending_ops(), 1u);
    // A crash in the middle of an append: the torn line was never sent, and is dropped.
    { std::ofstream(journal, std::ios::app) << R"({"operation_id":"op3","bo)"; }
    back = load_folder_state(cfg, s.root);
    ASSERT_EQ(back->pending.size(), 2u);
    // The next append starts a line of its own (the torn tail is cut off first).
    append_pending(cfg, *back, PendingCommit{"op4", "{}", {}, {}});
    back = load_folder_state(cfg, s.root);
    ASSERT_EQ(back->pending.size(), 3u);
    EXPECT_EQ(back->pending[2].operation_id, "op4");
    // Answered and saved: the journal goes.
    back->pending.clear();
    save_folder_state(cfg, *back);
    EXPECT_FALSE(present(journal));
    EXPECT_TRUE(load_folder_state(cfg, s.root)->pending.empty());
    // A damaged line in the middle is an error, not a silent loss.
    std::ofstream(journal) << "garbage\n{}\n";
    EXPECT_THROW(load_folder_state(cfg, s.root), CliError);
}

TEST(CliFolderJournal, RootsAreFoundWithoutReadingWholeStates) {
    TempDir d;
    Config cfg(d.at("cfg"));
    for (const char* root : {"/home/a", "/home/b \"quoted\""}) {
        FolderState s;
        s.root = root;
        s.files.set("x", FileEntry{"A", "r", "x", "fp", 1, 1, 0644, {}});
        save_folder_state(cfg, s);
    }
    auto roots = all_folder_roots(cfg);
    std::sort(roots.begin(), roots.end());
    EXPECT_EQ(roots, (std::vector<std::string>{"/home/a", "/home/b \"quoted\""}));
}
