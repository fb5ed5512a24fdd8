// commit_sql.cpp -- `pouch-loadgen commit-sql`: the baseline of make bench's commit rows, the
// least SQL that has the effect of one CLI commit of --batch new puts, written as a pgbench
// script from the handler's own statements (common/auth/sql_caller.h, common/model/pouch.h,
// handlers/sync/sql_commit.h), so a change to one is a change to the other:
//
//   token lookup; BEGIN; pouch row lock; idempotency probe; the state read (every bulk check
//   in one statement); revisions + events (one INSERT ... SELECT from the ops' columns, one
//   statement);
//   artifacts (one upsert); the pouch update; the commit_log row; COMMIT.
//
// What the handler runs besides is left out on purpose: the pipeline's pouch-access probe
// (the locked read answers the same 404) and the once-a-minute device touch. Parameters stay
// parameters (pgbench -M prepared binds them like the handler's pool does) with the values
// the handler would send; ids unique per transaction are computed in the statement from a
// random :k (md5 of it, a few microseconds), and the pouch from :seed and the client number
// (the bench makes its pouches with the same ids: md5 in version-4 form),
// so --pouches 32 gives each pgbench client its own pouch as the loadgen gives each thread.
//
// Writes the script to --script and the pgbench -D arguments, one per line, to --defines.
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/auth/sql_caller.h"
#include "common/crypto/b64url.h"
#include "common/crypto/random.h"
#include "common/db/array.h"
#include "common/json/described.h"
#include "common/model/pouch.h"
#include "handlers/sync/sql_commit.h"
#include "tools/loadgen/client.h"
#include "tools/loadgen/commit_sql.h"

namespace loadgen {

namespace {

// The statement's text with each $n replaced by args[n-1] (an expression or a :variable).
std::string bind(const pouch::db::Statement& st, const std::vector<std::string>& args) {
    std::string out;
    const std::string sql = st.sql;
    for (size_t i = 0; i < sql.size(); ++i) {
        if (sql[i] == '$' && i + 1 < sql.size() &&
            std::isdigit(static_cast<unsigned char>(sql[i + 1]))) {
            size_t j = i + 1;
            while (j < sql.size() && std::isdigit(static_cast<unsigned char>(sql[j]))) ++j;
            size_t n = std::stoul(sql.substr(i + 1, j - i - 1));
            if (n < 1 || n > args.size())
                throw std::runtime_error(std::string(st.name) + ": no value for $" +
                                         std::to_string(n));
            out += args[n - 1];
            i = j - 1;
        } else {
            out += sql[i];
        }
    }
    return out;
}

// A version-4 form of md5(text) as a uuid, as ids are everywhere (common/types/uuid.cpp).
std::string v4(const std::string& text) {
    return "overlay(overlay(md5(" + text + ") placing '4' from 13) placing '8' from 17)::uuid";
}

std::string uuid_expr(const std::string& tag) {
    return "(" + v4(":k::text || '." + tag + "'") + ")";
}

std::string uuids_expr(const std::string& tag, int batch) {
    return "(ARRAY(SELECT " + v4(":k::text || '." + tag + "' || g") + " FROM generate_series(1, " +
           std::to_string(batch) + ") g))";
}

}  // namespace

int commit_sql_main(int argc, char** argv) {
    auto o = parse_opts(argc, argv, {{"--batch", "1"}});
    int batch = std::atoi(o["--batch"].c_str());
    for (const char* k :
         {"--token", "--account", "--member", "--device", "--script", "--defines"}) {
        if (o[k].empty() || batch < 1) {
            std::fprintf(stderr,
                         "usage: pouch-loadgen commit-sql --batch N --token T --account A "
                         "--member M --device D --script FILE --defines FILE\n");
            return 2;
        }
    }
    namespace sync_sql = pouch::sync::sql;
    namespace auth_sql = pouch::auth::sql;
    using pouch::db::text_array;
    const std::string pouch = "(" + v4(":seed::text || :p::text") + ")";
    const std::string revs = uuids_expr("r", batch), arts = uuids_expr("a", batch);
    const std::string opid = uuid_expr("o");

    // What the loadgen's commits carry (tools/loadgen/client.cpp put_ops_body): 96-byte
    // envelopes, the same signature, no blobs, the device's member as signer; as the handler
    // sends them, the applied ops column by column (handlers/sync/commit_types.h AppliedOp, one
    // array per field; pgbench sends them as text literals), the ids and seqs computed per
    // transaction.
    std::vector<std::string> envelopes, hashes;
    std::string response = R"({"results":[)";
    for (int i = 0; i < batch; ++i) {
        envelopes.push_back(pouch::crypto::b64url_encode(pouch::crypto::random_bytes(96)));
        hashes.push_back(pouch::crypto::b64url_encode(pouch::crypto::random_bytes(32)));
        if (i) response += ',';
        response += R"({"status":"applied","artifact_id":")" + pouch::crypto::uuid_v4() +
                    R"(","revision_id":")" + pouch::crypto::uuid_v4() + R"(","seq":)" +
                    std::to_string(1000000 + i) + "}";
    }
    response += R"(],"high_water":)" + std::to_string(1000000 + batch) + "}";
    std::map<std::string, std::string> defines{
        {"token_hash", pouch::crypto::token_hash(o["--token"])},
        {"account", o["--account"]},
        {"device", o["--device"]},
        {"origin", "cli"},
        {"no_blobs", "{}"},
        {"signer_set", text_array(std::vector<std::string>{o["--member"]})},
        {"device_member", o["--member"]},
        {"envelopes", text_array(envelopes)},
        {"hashes", text_array(hashes)},
        {"signature", "c2lnbmF0dXJl"},
        {"stored_size", std::to_string(96 * 4 / 3 + 12)},
        {"bytes", std::to_string(batch * (128 + 12))},
        {"body_hash", pouch::crypto::b64url_encode(pouch::crypto::random_bytes(32))},
        {"response", response},
    };
    // The ops' columns with this transaction's ids (those of revs and arts) and seqs.
    const std::string n = std::to_string(batch);
    auto each = [&](const std::string& value) {
        return "(ARRAY(SELECT " + value + " FROM generate_series(1, " + n + ") g ORDER BY g))";
    };
    auto same = [&](const std::string& value) { return "array_fill(" + value + ", ARRAY[" + n + "])"; };
    const std::string art_ids = each(v4(":k::text || '.a' || g") + "::text"),
                      rev_ids = each(v4(":k::text || '.r' || g") + "::text"),
                      seqs = each(":high_water::bigint + g"), none = same("NULL::text");
    // In AppliedOp's order: type, artifact_id, revision_id, base_revision_id, merge_parent_id,
    // name_index, conflict_id, key_gen, envelope, signature, signer_member_id, blob_ids, seq,
    // envelope_hash, stored_size.
    const std::vector<std::string> applied{
        same("'put'::text"), art_ids, rev_ids, none, none, none, none, same("1::bigint"),
        "(:envelopes::text[])", same(":signature::text"), same(":device_member::text"),
        same("'{}'::text"), seqs, "(:hashes::text[])", same(":stored_size::bigint")};
    // ArtifactHead's: artifact_id, head_revision_id, head_seq, name_index, deleted.
    const std::vector<std::string> heads{art_ids, rev_ids, seqs, none, same("false")};

    std::string s;
    s += "-- generated by pouch-loadgen commit-sql (tools/loadgen/commit_sql.cpp): one CLI "
         "commit of " +
         std::to_string(batch) + " new puts, the handler's statements\n";
    s += "\\set k random(1, 9223372036854775806)\n";
    s += "\\set p :client_id % :npouches\n";
    s += bind(auth_sql::kAccessToken.statement, {":token_hash"}) + ";\n";
    s += "BEGIN;\n";
    s += bind(pouch::model::sql::kPouchForUpdate.statement, {pouch, ":account"}) + " \\gset\n";
    s += bind(sync_sql::kStoredCommit.statement, {pouch, opid}) + ";\n";
    s += bind(sync_sql::kCommitState.statement,
              {pouch, revs, arts, ":account", ":no_blobs", ":signer_set", ":account"}) +
         ";\n";
    std::vector<std::string> insert{pouch, ":origin", ":device", ":epoch"};
    insert.insert(insert.end(), applied.begin(), applied.end());
    s += loadgen::bind(sync_sql::kInsertRevisions.statement, insert) + ";\n";
    std::vector<std::string> upsert{pouch};
    upsert.insert(upsert.end(), heads.begin(), heads.end());
    s += loadgen::bind(sync_sql::kUpsertArtifacts.statement, upsert) + ";\n";
    s += "\\set hw :high_water + " + std::to_string(batch) + "\n";
    s += bind(sync_sql::kAdvancePouch.statement, {pouch, ":hw", ":bytes"}) + ";\n";
    s += bind(sync_sql::kStoreCommit.statement, {pouch, opid, ":body_hash", ":response"}) + ";\n";
    s += "COMMIT;\n";

    std::ofstream script(o["--script"]), args(o["--defines"]);
    script << s;
    for (const auto& [k, v] : defines) args << k << '=' << v << '\n';
    if (!script || !args) {
        std::fprintf(stderr, "pouch-loadgen: cannot write %s or %s\n", o["--script"].c_str(),
                     o["--defines"].c_str());
        return 1;
    }
    return 0;
}

}  // namespace loadgen
