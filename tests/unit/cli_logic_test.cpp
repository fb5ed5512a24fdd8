// cli_logic_test.cpp -- the `pouch` CLI's pure parts (clients/cli): command-line parsing, the
// folder state file, fingerprints that a file and its content object share, NFC names, the
// scan's choices, and the help that --help and the man page both come from.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>

#include "clients/cli/api.h"
#include "clients/cli/args.h"
#include "clients/cli/errors.h"
#include "clients/cli/files.h"
#include "clients/cli/folder_state.h"
#include "clients/cli/help.h"
#include "clients/cli/revision.h"
#include "clients/cli/scan.h"
#include "clients/cli/terminal_text.h"
#include "common/clientfmt/cdc.h"
#include "common/clientfmt/chunk.h"
#include "common/crypto/b64url.h"
#include "common/crypto/random.h"
#include "common/json/out.h"
#include "tests/unit/cli_test_dir.h"

using namespace pouch;
using namespace pouch::cli;

namespace {

using pouch::testing::TempDir;

int usage_code(const std::vector<std::string>& argv) {
    try {
        parse_args(argv, {"pouch"}, {"json"});
    } catch (const CliError& e) {
        return e.code;
    }
    return 0;
}

}  // namespace

TEST(CliArgs, OptionsFlagsAndPositionalsAreSeparated) {
    Args a = parse_args({"DIR", "--pouch", "abc", "--json", "--config=/x", "--", "--not-an-option"},
                        {"pouch"}, {"json"});
    EXPECT_EQ(a.get("pouch"), "abc");
    EXPECT_EQ(a.get("config"), "/x");
    EXPECT_TRUE(a.flag("json"));
    EXPECT_EQ(a.positional, (std::vector<std::string>{"DIR", "--not-an-option"}));
}

TEST(CliArgs, UnknownRepeatedOrValuelessOptionsAreUsageErrors) {
    EXPECT_EQ(usage_code({"--nope"}), kExitUsage);
    EXPECT_EQ(usage_code({"--pouch", "a", "--pouch", "b"}), kExitUsage);
    EXPECT_EQ(usage_code({"--pouch"}), kExitUsage);
    EXPECT_EQ(usage_code({"--json=1"}), kExitUsage);
    EXPECT_EQ(usage_code({"--help"}), 0);
}

TEST(CliFolderState, RoundTripsThroughJson) {
    FolderState s;
    s.root = "/home/ada/Notes";
    s.pouch_id = crypto::uuid_v4();
    s.epoch = crypto::uuid_v4();
    s.seq = 42;
    FileEntry e{
        crypto::uuid_v4(),           crypto::uuid_v4(), "notes/a.md", "5:i:x", 5, 123456789, 0644,
        {{"blob", 7, "key", "hash"}}};
    s.files.set("notes/a.md", e);
    s.conflict_of["a (conflict b 2026-11-23).md"] = crypto::uuid_v4();
    s.chunk_cache["hash"] = {"blob", 7, "key", "hash"};
    s.skipped[crypto::uuid_v4()] = "a is a file here, not a directory";
    FolderState back = FolderState::from_json(s.to_json());
    EXPECT_EQ(back.to_json(), s.to_json());
    EXPECT_EQ(*back.local_name_of(e.artifact_id), "notes/a.md");
}

TEST(CliFolderState, ADamagedFileIsACliErrorNotACrash) {
    EXPECT_THROW(FolderState::from_json("{\"root\":1}"), CliError);
    EXPECT_THROW(FolderState::from_json("not json"), CliError);
}

// A server's answer is read only through the checked accessors: a missing or mistyped member is
// a CliError, never RapidJSON's assert (which aborts the process).
TEST(CliAnswer, MissingOrMistypedMembersAreErrorsNotAborts) {
    rapidjson::Document d;
    d.Parse(R"({"items":[1],"usage":{"n":1},"flat":1,"text":"x"})");
    EXPECT_EQ(jarr(d, "items").Size(), 1u);
    EXPECT_EQ(jint(jobj(d, "usage"), "n"), 1);
    EXPECT_THROW(jarr(d, "flat"), CliError);
    EXPECT_THROW(jarr(d, "absent"), CliError);
    EXPECT_THROW(jobj(d, "items"), CliError);
    EXPECT_THROW(jobj(d, "text"), CliError);
    EXPECT_THROW(jarr(jarr(d, "items")[0], "items"), CliError);  // not an object at all
    EXPECT_THROW(jstr(jarr(d, "items")[0], "id"), CliError);
}

// A journaled batch names its generation in its body: resend_pending sends it again only under
// that generation.
TEST(CliFolderState, APendingCommitKnowsTheGenerationItWasSealedUnder) {
    PendingCommit pc{crypto::uuid_v4(),
                     R"({"operation_id":"x","epoch":"e","ops":[{"type":"put","key_gen":7},)"
                     R"({"type":"delete","key_gen":7}]})",
                     {},
                     {}};
    EXPECT_EQ(pc.key_gen(), 7);
    pc.body = R"({"operation_id":"x","epoch":"e","ops":[]})";
    EXPECT_EQ(pc.key_gen(), 0);
    pc.body = "not json";
    EXPECT_EQ(pc.key_gen(), 0);
}

TEST(CliFingerprint, AFileAndItsInlineContentAgree) {
    TempDir d;
    std::string data = crypto::random_bytes(1000);
    d.write("f", data);
    FolderRoot root(d.path);
    clientfmt::Content c;
    c.name = "f";
    c.size = 1000;
    c.data = crypto::b64url_encode(data);
    EXPECT_EQ(digest_file(root, "f").fp, fingerprint_of_content(c));
}

TEST(CliFingerprint, AFileAndItsChunkedContentAgreeAndDifferFromAnyChange) {
    TempDir d;
    std::string data = crypto::random_bytes(clientfmt::kChunkSize + 100);
    d.write("big", data);
    FolderRoot root(d.path);
    clientfmt::Content c;
    c.name = "big";
    c.size = static_cast<long long>(data.size());
    // Cut where the content-defined chunker cuts (clientfmt::cdc_cut), as a writer does: two
    // chunks or three, as the random bytes fall.
    std::vector<clientfmt::ChunkRef> chunks;
    for (size_t pos = 0; pos < data.size();) {
        std::string_view rest = std::string_view(data).substr(pos);
        size_t len = clientfmt::cdc_cut(rest.substr(0, clientfmt::kCdcMax));
        chunks.push_back(clientfmt::seal_chunk(rest.substr(0, len)).entry);
        pos += len;
    }
    c.chunks = chunks;
    FileDigest dig = digest_file(root, "big");
    EXPECT_EQ(dig.fp, fingerprint_of_content(c));
    EXPECT_EQ(dig.chunk_hashes.size(), chunks.size());
    EXPECT_GE(chunks.size(), 2u);
    data[5] ^= 1;
    d.write("big2", data);
    EXPECT_NE(digest_file(root, "big2").fp, dig.fp);
}

// The service's `kind` is unsigned: a put it lists as a delete would remove the file on every
// device, so open_revision refuses any revision whose kind and signed content disagree.
// The format's exception (CLIENT-FORMAT.md "Chunk boundaries"): a file the content-defined cuts
// would split into more than the bound is cut every kCdcMax bytes. The bound is lowered to 2
// here, so 9 MiB of random bytes (about four content-defined chunks) takes fixed cuts, while
// a bound of 10 keeps the content-defined ones.
TEST(CliChunkReader, AFileOverTheChunkBoundIsCutEveryFourMiB) {
    TempDir dir;
    std::string data = crypto::random_bytes(9 * 1024 * 1024);
    std::string path = dir.path + "/big";
    std::ofstream(path, std::ios::binary) << data;
    std::vector<size_t> cdc;
    for (size_t pos = 0; pos < data.size();) {
        size_t len = clientfmt::cdc_cut(std::string_view(data).substr(pos, clientfmt::kCdcMax));
        cdc.push_back(len);
        pos += len;
    }
    ASSERT_GT(cdc.size(), 2u);
    auto lengths = [&](size_t bound) {
        ChunkReader r(Fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC)), "big", bound);
        std::vector<size_t> out;
        std::string joined;
        for (std::string_view c = r.next(); !c.empty(); c = r.next()) {
            out.push_back(c.size());
            joined += c;
        }
        EXPECT_EQ(joined, data);
        return out;
    };
    EXPECT_EQ(lengths(2),
              (std::vector<size_t>{clientfmt::kCdcMax, clientfmt::kCdcMax, 1024 * 1024}));
    EXPECT_EQ(lengths(10), cdc);
    EXPECT_EQ(lengths(cdc.size()), cdc);
    EXPECT_EQ(lengths(cdc.size() - 1),
              (std::vector<size_t>{clientfmt::kCdcMax, clientfmt::kCdcMax, 1024 * 1024}));
}

TEST(CliRevision, TheServicesKindMustAgreeWithTheSignedContent) {
    clientfmt::Content file;
    file.data = "";
    clientfmt::Content tomb = clientfmt::tombstone("a.txt", "file", 1);
    EXPECT_EQ(kind_mismatch("put", file), "");
    EXPECT_EQ(kind_mismatch("delete", tomb), "");
    EXPECT_EQ(kind_mismatch("delete", file),
              "the service lists it as a delete, but its signed content is not a tombstone");
    EXPECT_EQ(kind_mismatch("put", tomb),
              "the service lists it as a put, but its signed content is a tombstone");
    EXPECT_EQ(kind_mismatch("", file), "the service lists it with an unknown kind");
    EXPECT_EQ(kind_mismatch("DELETE", tomb), "the service lists it with an unknown kind");
    Revision r;
    r.kind = "delete";  // the service's word alone makes no tombstone
    EXPECT_FALSE(r.deleted());
    r.content = tomb;
    EXPECT_TRUE(r.deleted());
}

TEST(CliNames, NfcNormalisesDecomposedNamesAndRefusesInvalidUtf8) {
    EXPECT_EQ(to_nfc("cafe\xcc\x81"), "caf\xc3\xa9");
    EXPECT_EQ(to_nfc("plain/a.txt"), "plain/a.txt");
    EXPECT_FALSE(to_nfc("bad\xff"));
}

TEST(CliScan, ListsRegularFilesAndSkipsSymlinksAndPouchTemporaries) {
    TempDir d;
    ::mkdir((d.path + "/sub").c_str(), 0755);
    d.write("sub/a.txt", "a");
    d.write(".hidden", "h");
    d.write(std::string(kTempPrefix) + "x", "partial");
    ASSERT_EQ(::symlink("/etc/passwd", (d.path + "/link").c_str()), 0);
    auto files = scan_folder(d.path);
    std::vector<std::string> names;
    for (const auto& [n, f] : files) names.push_back(n);
    EXPECT_EQ(names, (std::vector<std::string>{".hidden", "sub/a.txt"}));
    EXPECT_EQ(files["sub/a.txt"].size, 1);
}

TEST(CliHelp, EveryCommandHasHelpAndTheManPageNamesThemAll) {
    std::string man = man_page();
    for (const char* c :
         {"login", "logout", "status", "devices", "rename", "ls", "push", "pull", "sync", "help"}) {
        const CommandDoc* d = find_command_doc(c);
        ASSERT_TRUE(d) << c;
        EXPECT_NE(command_help(*d).find(std::string("usage: pouch ") + c), std::string::npos);
        EXPECT_NE(man.find(".SS " + std::string(c)), std::string::npos) << c;
    }
    EXPECT_NE(man.find(".SH EXIT STATUS"), std::string::npos);
    EXPECT_NE(overview_help().find("130"), std::string::npos);
}
