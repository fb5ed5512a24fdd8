// artifacts.cpp -- GET .../artifacts (op 7) and GET .../artifacts/{artifactId}/revisions
// (op 10), decisions §5.4: keyset pages with an opaque cursor, at most `limit` items and
// about 4 MiB of JSON each. The cursor is b64url of "<scope>|<seq>|<id>" where the scope names
// the endpoint, pouch and epoch (and the artifact for revisions): a cursor is valid only for
// the list it came from, and one from before an epoch reset is refused rather than misread.
#include <cctype>
#include <string>
#include <vector>

#include "common/auth/caller.h"
#include "common/crypto/b64url.h"
#include "common/http/error.h"
#include "common/http/query.h"
#include "common/http/router.h"
#include "common/json/out.h"
#include "handlers/sync/pouch_access.h"
#include "handlers/sync/revision_json.h"
#include "handlers/sync/routes.h"
#include "handlers/sync/sql_reads.h"

namespace pouch::sync {

namespace {

constexpr size_t kPageBudget = 4 * kMiB;         // JSON bytes after which a page stops
constexpr long long kMaxSeq = 9007199254740991;  // decisions §3
constexpr size_t kMaxCursorChars = 512;

struct Key {
    long long seq;
    std::string id;
};

std::string encode_cursor(const std::string& scope, const Key& k) {
    return crypto::b64url_encode(scope + "|" + std::to_string(k.seq) + "|" + k.id);
}

ApiError invalid_cursor() {
    return ApiError(400, "invalid_cursor", "the cursor is malformed or belongs to another list");
}

// Canonical decimal 0..kMaxSeq, as encode_cursor writes it.
bool parse_seq(const std::string& v, long long& out) {
    if (v.empty() || v.size() > 16 || v.find_first_not_of("0123456789") != std::string::npos)
        return false;
    if (v.size() > 1 && v[0] == '0') return false;
    out = std::stoll(v);
    return out <= kMaxSeq;
}

// The key after which the page starts; `start` when there is no cursor.
Key decode_cursor(const QueryValues& q, const std::string& scope, Key start) {
    auto text = q.text("cursor");
    if (!text) return start;
    auto raw = crypto::b64url_decode(*text);
    if (!raw) throw invalid_cursor();
    size_t id_at = raw->rfind('|');
    if (id_at == std::string::npos || id_at == 0) throw invalid_cursor();
    size_t seq_at = raw->rfind('|', id_at - 1);
    if (seq_at == std::string::npos || raw->compare(0, seq_at, scope) != 0 ||
        seq_at != scope.size())
        throw invalid_cursor();
    Key k;
    k.id = raw->substr(id_at + 1);
    if (!parse_seq(raw->substr(seq_at + 1, id_at - seq_at - 1), k.seq) || !is_uuid(k.id))
        throw invalid_cursor();
    return k;
}

// Writes the items of a page result (fetched with limit + 1 rows and the byte budget): stops
// after `limit` items or once the JSON passes the budget (at least one item). `item` writes
// one row and returns its key. next_cursor is set when fetched rows are left over, i.e. when
// more may follow; at the end of the list it stays null.
template <typename WriteItem>
Response write_page(const db::Result& r, long long limit, const std::string& scope,
                    WriteItem item) {
    json::Out o;
    o.key("items").arr();
    long long written = 0;
    Key last{0, ""};
    for (int i = 0; i < r.rows() && written < limit; ++i) {
        last = item(o, i);
        ++written;
        if (o.size() > kPageBudget) break;
    }
    o.end_arr();
    Response resp;
    resp.data = o.done();
    resp.list = true;
    if (r.rows() > 0 && written < r.int64(0, "fetched"))
        resp.next_cursor = encode_cursor(scope, last);
    return resp;
}

}  // namespace

Response list_artifacts(Request& req, Services& s) {
    auth::Caller c = auth::authenticate(req, s);
    QueryValues q =
        validate_query(req, {query_text("cursor", kMaxCursorChars), query_int("limit", 1, 500, 100),
                             query_bool("include_deleted", false)});
    long long limit = q.integer("limit");
    auto conn = s.db.acquire();
    PouchRow p = load_pouch(*conn, req.param("pouchId"), c);
    const std::string scope = "artifacts/" + p.id + "/" + p.epoch;
    // head_seq is >= 0, so (-1, any id) is before every artifact.
    Key from = decode_cursor(q, scope, Key{-1, "00000000-0000-0000-0000-000000000000"});
    db::Result r =
        conn->exec(q.boolean("include_deleted") ? sql::kAllArtifactsPage : sql::kLiveArtifactsPage,
                   {p.id, std::to_string(from.seq), from.id, std::to_string(limit + 1),
                    std::to_string(kPageBudget)});
    return write_page(r, limit, scope, [&](json::Out& o, int i) {
        Key k{r.int64(i, "head_seq"), r.text(i, "id")};
        o.obj();
        o.kv("id", k.id).kv("name_index", r.text(i, "name_index"));
        o.kv("updated_at", r.text(i, "updated_at"));
        o.key("head");
        write_revision(o, r, i);
        o.end_obj();
        return k;
    });
}

Response list_revisions(Request& req, Services& s) {
    auth::Caller c = auth::authenticate(req, s);
    QueryValues q = validate_query(
        req, {query_text("cursor", kMaxCursorChars), query_int("limit", 1, 500, 100)});
    long long limit = q.integer("limit");
    auto conn = s.db.acquire();
    PouchRow p = load_pouch(*conn, req.param("pouchId"), c);
    const std::string& artifact_id = req.param("artifactId");
    if (conn->exec(sql::kArtifactExists, {p.id, artifact_id}).rows() == 0) throw not_found();
    // The scope holds the artifact id as the database spells it (lower case).
    std::string artifact = artifact_id;
    for (char& ch : artifact) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    const std::string scope = "revisions/" + p.id + "/" + p.epoch + "/" + artifact;
    // Newest first: the page holds seqs below the cursor's; no cursor starts above them all.
    Key from = decode_cursor(q, scope, Key{kMaxSeq + 1, "00000000-0000-0000-0000-000000000000"});
    db::Result r =
        conn->exec(sql::kRevisionsPage, {p.id, artifact_id, std::to_string(from.seq),
                                         std::to_string(limit + 1), std::to_string(kPageBudget)});
    return write_page(r, limit, scope, [&](json::Out& o, int i) {
        write_revision(o, r, i);
        return Key{r.int64(i, "rev_seq"), r.text(i, "rev_id")};
    });
}

}  // namespace pouch::sync
