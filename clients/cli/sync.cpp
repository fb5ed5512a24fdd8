// sync.cpp -- pull, push and conflicts of one folder (sync.h) on the Api, Trust (verified
// roster and pouch keys), common/clientfmt (envelopes, chunks, names), scan.h and the
// folder's FolderRoot (files.h), through which every local file is read and written.
#include "clients/cli/sync.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <deque>
#include <exception>
#include <mutex>
#include <set>
#include <thread>
#include <unordered_map>

#include "clients/cli/errors.h"
#include "clients/cli/files.h"
#include "clients/cli/terminal_text.h"
#include "common/clientfmt/chunk.h"
#include "common/clientfmt/proofs.h"
#include "common/crypto/b64url.h"
#include "common/crypto/es256.h"
#include "common/crypto/hash.h"
#include "common/crypto/jws_sign.h"
#include "common/crypto/random.h"
#include "common/json/out.h"

namespace pouch::cli {

namespace fmt = pouch::clientfmt;

namespace {

constexpr size_t kMaxOps = 50;                      // decisions §3: 1..50 ops per commit
constexpr size_t kMaxBatchBytes = 6 * 1024 * 1024;  // under the 8 MiB commit body limit
constexpr int kMaxRounds = 8;
constexpr size_t kCheckBatch = 16;               // chunks per blobs/check (the API takes 1,000)
constexpr size_t kHeldBytes = 48 * 1024 * 1024;  // sealed chunks held by the blob pipeline
constexpr int kCommitsInFlight = 2;              // sent, not yet answered

long long now_ms() {
    timespec ts{};
    ::clock_gettime(CLOCK_REALTIME, &ts);
    return static_cast<long long>(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000;
}

long long monotonic_ms() {
    timespec ts{};
    ::clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<long long>(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000;
}

// A name from another member as messages show it: at most 120 characters (a hostile name may
// be 4 KiB), defanged (terminal_text.h).
std::string shown(const std::string& name) {
    std::string cut = first_chars(name, 120);
    return defang(cut) + (cut.size() < name.size() ? "..." : "");
}

// POUCH_TEST_KILL_AFTER_COMMIT=N: the process kills itself (SIGKILL) once the server has
// answered its N-th commit and before the answer is recorded -- the worst moment to die,
// reproduced exactly for the CLI suite's resume test. Not set in normal use.
void kill_point_for_tests() {
    static int commits = 0;
    const char* n = std::getenv("POUCH_TEST_KILL_AFTER_COMMIT");
    if (n && ++commits == std::atoi(n)) ::raise(SIGKILL);
}

// The Service-Signature of a commit body send_batches wrote: every object's members in JCS
// order (sorted; ASCII keys), integers only, no whitespace -- so when no string needed an
// escape (no backslash anywhere), the body is its own JCS form and is hashed as it is, not
// parsed and written again (a third of a push's CPU for 6 MiB batches of small files). Any
// other body takes the full canonicalization.
std::string service_signature(const crypto::P256PrivateKey& key, const std::string& body) {
    if (body.find('\\') != std::string::npos) return fmt::make_service_signature(key, body);
    std::string hash_b64 = crypto::b64url_encode(crypto::blake3_256(body));
    std::string header =
        R"({"alg":"ES256","kid":")" + crypto::jwk_thumbprint(key.x(), key.y()) + R"("})";
    return crypto::jws_detached(key, header, hash_b64);
}

bool in_scope(const std::string& name, const std::string& scope) {
    return scope.empty() || name == scope ||
           (name.size() > scope.size() && name.compare(0, scope.size(), scope) == 0 &&
            name[scope.size()] == '/');
}

// The whole file (ItemSkipped when it cannot be read through the folder's handle).
std::string read_whole(FolderRoot& root, const std::string& name) {
    Fd fd = root.open_read(name);
    std::string out;
    char buf[65536];
    while (true) {
        ssize_t n = ::read(fd.get(), buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) throw ItemSkipped("cannot read " + name + ": " + std::strerror(errno));
        if (n == 0) break;
        out.append(buf, static_cast<size_t>(n));
    }
    return out;
}

}  // namespace

struct SyncEngine::LocalStatus {
    enum Kind { kMissing, kUnchanged, kChanged } kind = kMissing;
    std::string fp;  // when computed
};

// The revisions of a page opened (verified, decrypted: open_revision) ahead of their
// application, on a thread of its own and on the applying thread while it would wait: what
// asks Trust runs first, here, in the page's order (revision_opener); the rest in any order.
// get(i) returns the i-th revision once it is open, or rethrows what opening it threw, so that
// the caller applies them one by one in the page's order with every check of open_revision.
// The page's JSON is only read, by both threads, and outlives this object.
class SyncEngine::PageOpener {
  public:
    PageOpener(Trust& trust, const std::string& pouch_id, std::vector<const rapidjson::Value*> revs)
        : pouch_id_(pouch_id), revs_(std::move(revs)), slots_(revs_.size()) {
        for (size_t i = 0; i < revs_.size(); ++i) {
            try {
                slots_[i].opener = revision_opener(trust, pouch_id_, *revs_[i]);
            } catch (...) {
                slots_[i].error = std::current_exception();
            }
        }
        if (revs_.size() > 1) worker_ = std::thread([this] { work(); });
    }
    ~PageOpener() {
        next_.store(revs_.size());  // nothing more is claimed; the one being opened ends
        if (worker_.joinable()) worker_.join();
    }
    PageOpener(const PageOpener&) = delete;
    PageOpener& operator=(const PageOpener&) = delete;

    const Revision& get(size_t i) {
        // Opens the next unclaimed ones here until the i-th is open (by either thread).
        while (!ready(i) && claim_and_open()) {
        }
        {
            std::unique_lock lock(mu_);
            cv_.wait(lock, [&] { return slots_[i].done; });
        }
        if (slots_[i].error) std::rethrow_exception(slots_[i].error);
        return *slots_[i].h;
    }

  private:
    struct Slot {
        RevisionOpener opener;
        std::optional<Revision> h;
        std::exception_ptr error;
        bool done = false;  // under mu_
    };
    bool ready(size_t i) {
        std::lock_guard lock(mu_);
        return slots_[i].done;
    }
    bool claim_and_open() {
        size_t i = next_.fetch_add(1);
        if (i >= revs_.size()) return false;
        Slot& s = slots_[i];
        if (!s.error) {
            try {
                s.h = open_revision_with(s.opener, pouch_id_, *revs_[i]);
            } catch (...) {
                s.error = std::current_exception();
            }
        }
        {
            std::lock_guard lock(mu_);
            s.done = true;
        }
        cv_.notify_all();
        return true;
    }
    void work() {
        while (claim_and_open()) {
        }
    }

    const std::string& pouch_id_;
    std::vector<const rapidjson::Value*> revs_;
    std::vector<Slot> slots_;
    std::atomic<size_t> next_{0};
    std::mutex mu_;
    std::condition_variable cv_;
    std::thread worker_;  // last: started once the rest is built
};

struct SyncEngine::Planned {
    std::string type;  // put | delete
    std::string local, prev_local;
    std::string artifact_id, base;
    std::optional<std::string> conflict_id;
    LocalFile file;
    std::string remote_name;
    FileEntry old;  // delete: the entry being deleted
    std::string op_json;
    OpIntent intent;
};

SyncEngine::SyncEngine(Api& api, Trust& trust, const Config& cfg, DeviceState& device,
                       FolderState& state, Progress& progress)
    : api_(api),
      trust_(trust),
      cfg_(cfg),
      device_(device),
      s_(state),
      progress_(progress),
      root_(state.root),
      last_save_ms_(monotonic_ms()) {
    root_.write_behind(true);  // settled by save_now() (FolderRoot::settle)
}

SyncEngine::~SyncEngine() {
    api_.cancel_all();  // their callbacks refer to this engine
}

void SyncEngine::save() {
    // Due after a second, or after nine times what the last write took: a state of 100,000
    // files (~30 MB) is then written every few seconds and costs at most a tenth of the run.
    if (monotonic_ms() - last_save_ms_ >= std::max(1000LL, 9 * save_cost_ms_)) save_now();
}

void SyncEngine::save_now() {
    long long start = monotonic_ms();
    root_.settle();  // the state names only files durable in place
    save_folder_state(cfg_, s_);
    last_save_ms_ = monotonic_ms();
    save_cost_ms_ = last_save_ms_ - start;
}

const crypto::P256PrivateKey& SyncEngine::sign_key() {
    if (!sign_key_) sign_key_ = cfg_.sign_key();
    return *sign_key_;
}

void SyncEngine::load_pouch() {
    ApiAnswer a = api_.call("GET", "/v1/pouches/" + s_.pouch_id);
    if (a.status == 404)
        throw CliError(kExitFailure, "the pouch " + s_.pouch_id + " bound to " + s_.root +
                                         " is not visible to this device any more");
    if (!a.ok()) throw CliError(kExitFailure, "GET /v1/pouches/{id}: " + describe(a));
    std::string epoch = jstr(a.data(), "epoch");
    key_gen_ = jint(a.data(), "key_gen");
    high_water_ = jint(a.data(), "high_water");
    if (s_.epoch != epoch) {
        if (!s_.epoch.empty()) progress_.say("the pouch's event log was reset; reading it again");
        s_.epoch = epoch;
        s_.seq = 0;
        save_now();
    }
}

// ---- reading the pouch ---------------------------------------------------------------------

std::optional<Revision> SyncEngine::fetch_head(const std::string& artifact_id) {
    ApiAnswer a = api_.call(
        "GET", "/v1/pouches/" + s_.pouch_id + "/artifacts/" + artifact_id + "/revisions?limit=1");
    if (a.status == 404) return std::nullopt;
    if (!a.ok()) throw CliError(kExitFailure, "GET revisions: " + describe(a));
    const auto& items = jarr(a.data(), "items");
    if (items.Empty()) return std::nullopt;
    return open_revision(trust_, s_.pouch_id, items[0]);
}

void SyncEngine::skip(const std::string& artifact_id, const std::string& why) {
    ++stats_.skipped;
    stats_.messages.push_back("skipped artifact " + artifact_id + ": " + why);
    s_.skipped[artifact_id] = why;
}

void SyncEngine::skip_local(const std::string& why) {
    if (!said_.insert(why).second) return;  // once per run (a push plans up to 8 rounds)
    ++stats_.skipped;
    stats_.messages.push_back("not sent: " + why);
}

void SyncEngine::apply_readable(const rapidjson::Value& rev, PageOpener* page, size_t i) {
    std::string aid = jstr(rev, "artifact_id");
    read_this_run_.insert(aid);
    try {
        if (page)
            apply_head(page->get(i));
        else
            apply_head(open_revision(trust_, s_.pouch_id, rev));
    } catch (const ItemSkipped& e) {
        skip(aid, e.what());
    }
}

void SyncEngine::read_changed(const std::string& artifact_id) {
    read_this_run_.insert(artifact_id);
    try {
        if (auto h = fetch_head(artifact_id)) apply_head(*h);
        s_.skipped.erase(artifact_id);
    } catch (const ItemSkipped& e) {
        skip(artifact_id, e.what());
    }
    save();
}

void SyncEngine::retry_skipped() {
    std::vector<std::string> again;
    for (const auto& [aid, why] : s_.skipped)
        if (!read_this_run_.count(aid)) again.push_back(aid);
    if (again.empty()) return;
    // Envelopes sealed to this member since the last pull (a member added while a rotation
    // was pending gets the current generation late); a missing generation is not fetched
    // again per artifact (Trust::pouch_key).
    trust_.fetch_keys(s_.pouch_id);
    for (const auto& aid : again) read_changed(aid);
}

void SyncEngine::full_resync() {
    long long hw = high_water_;
    s_.skipped.clear();  // every artifact is read again below
    const std::string path = "/v1/pouches/" + s_.pouch_id + "/artifacts";
    const std::string first =
        path + "?" + (s_.files.empty() ? "" : "include_deleted=true&") + "limit=500";
    // A head this folder already holds (its own commits, after a push) needs neither
    // verifying nor writing: nothing of it is used.
    auto held = [&](const rapidjson::Value& head) {
        const std::string* local = s_.local_name_of(jstr(head, "artifact_id"));
        return local && s_.files.at(*local).revision_id == jstr(head, "id");
    };
    auto head_of = [](const rapidjson::Value& item) -> const rapidjson::Value* {
        if (!item.IsObject() || !item.HasMember("head") || !item["head"].IsObject()) return nullptr;
        return &item["head"];
    };
    // Page after page (meta.next_cursor). The next page is fetched while this one is applied
    // (Api::pump between its items), and the heads it brings are opened (PageOpener) on a
    // second thread meanwhile; they are applied one by one in the page's order.
    ApiAnswer page = api_.call("GET", first);
    while (true) {
        if (!page.ok()) throw CliError(kExitFailure, "GET " + path + ": " + describe(page));
        std::optional<std::string> cursor = page.next_cursor();
        auto next = std::make_shared<std::optional<ApiAnswer>>();
        if (cursor) {
            api_.start("GET", first + "&cursor=" + url_encode(*cursor), "", {}, CallOptions{},
                       [next](ApiAnswer& a) { *next = std::move(a); });
            api_.pump();  // the request leaves now
        }
        const auto& items = jarr(page.data(), "items");
        std::vector<const rapidjson::Value*> heads;
        std::vector<size_t> slot(items.Size(), SIZE_MAX);  // item -> its head in `heads`
        for (rapidjson::SizeType k = 0; k < items.Size(); ++k) {
            const rapidjson::Value* head = head_of(items[k]);
            try {
                if (!head || held(*head)) continue;
            } catch (const std::exception&) {
                continue;  // a head without its ids: it fails in its turn, below, as before
            }
            slot[k] = heads.size();
            heads.push_back(head);
        }
        {
            PageOpener opened(trust_, s_.pouch_id, std::move(heads));
            for (rapidjson::SizeType k = 0; k < items.Size(); ++k) {
                const rapidjson::Value* head = head_of(items[k]);
                if (!head || held(*head)) continue;  // asked again: an earlier item may change it
                if (slot[k] != SIZE_MAX)
                    apply_readable(*head, &opened, slot[k]);
                else
                    apply_readable(*head);
                save();
                api_.pump();
            }
        }
        if (!cursor) break;
        while (!*next && api_.in_flight() > 0) api_.wait_one();
        if (!*next) throw CliError(kExitFailure, "GET " + path + ": the page was lost");
        page = std::move(**next);
    }
    s_.seq = hw;
    save();
}

namespace {

// The revision an event brings along (docs/SYNC.md, the events extension), when it is the one
// the event names; else null and the artifact's head is fetched.
const rapidjson::Value* inlined_revision(const rapidjson::Value& ev, const std::string& aid,
                                         const std::string& rid) {
    if (!ev.HasMember("revision") || !ev["revision"].IsObject()) return nullptr;
    const auto& rev = ev["revision"];
    if (jopt(rev, "id") != rid || jopt(rev, "artifact_id") != aid) return nullptr;
    return &rev;
}

}  // namespace

void SyncEngine::read_event(const std::string& artifact_id, const rapidjson::Value* rev) {
    if (!rev) return read_changed(artifact_id);
    read_this_run_.insert(artifact_id);
    try {
        // Verified exactly as a fetched head (open_revision): roster, signature, key, kind.
        apply_head(open_revision(trust_, s_.pouch_id, *rev));
        s_.skipped.erase(artifact_id);
    } catch (const ItemSkipped& e) {
        skip(artifact_id, e.what());
    }
    save();
}

bool SyncEngine::apply_events_page() {
    ApiAnswer a = api_.call("GET", "/v1/pouches/" + s_.pouch_id + "/events?epoch=" + s_.epoch +
                                       "&after=" + std::to_string(s_.seq) +
                                       "&limit=" + std::to_string(events_limit_));
    if (a.status == 409 && a.code == "epoch_mismatch") {
        load_pouch();
        full_resync();
        return false;
    }
    if (!a.ok()) throw CliError(kExitFailure, "GET events: " + describe(a));
    const auto& items = jarr(a.data(), "items");
    if (items.Empty()) return false;
    // Per changed artifact (in the order first met) its last revision event of the page: the
    // head as of this page, with the revision when the event brings it.
    struct Last {
        std::string revision_id;
        const rapidjson::Value* revision = nullptr;
    };
    // The page is applied up to its first revision event past the inline budget (docs/SYNC.md):
    // the next page, after the last seq applied, brings those revisions along, where reading
    // them here would cost a request per artifact (a device that missed 10,000 small files
    // would make 10,000 of them). The page's first revision event is applied whatever its size:
    // one over the budget on its own is never inlined, and the page always moves on.
    std::vector<std::string> changed;
    std::unordered_map<std::string, Last> last_of;
    long long last = s_.seq;
    bool cut = false, any_revision = false;
    int applied = 0;
    for (const auto& ev : items.GetArray()) {
        std::string kind = jstr(ev, "kind");
        if (kind == "revision") {
            std::string aid = jstr(ev, "artifact_id");
            std::string rid = jstr(ev, "revision_id");
            const rapidjson::Value* rev = inlined_revision(ev, aid, rid);
            if (!rev && any_revision) {
                cut = true;
                break;
            }
            any_revision = true;
            if (!last_of.count(aid)) changed.push_back(aid);
            last_of[aid] = {rid, rev};
        } else if (kind == "roster") {
            trust_.reload();
        }  // key_rotation: keys are fetched when first needed
        last = jint(ev, "seq");
        ++applied;
    }
    const bool full = static_cast<int>(items.Size()) >= events_limit_;
    events_limit_ = cut ? std::clamp(2 * applied, 50, 1000) : 1000;
    for (const auto& aid : changed) {
        const Last& l = last_of.at(aid);
        if (const std::string* local = s_.local_name_of(aid);
            local && s_.files.at(*local).revision_id == l.revision_id)
            continue;  // this folder's own commit, already recorded
        read_event(aid, l.revision);
    }
    s_.seq = last;
    save();
    return cut || full;
}

void SyncEngine::pull() {
    load_pouch();
    pulled_ = true;
    const long long seq_before = s_.seq;
    const std::string epoch_before = s_.epoch;
    if (s_.seq == 0) {
        full_resync();
    } else {
        while (apply_events_page()) {
        }
        // After the events, so that a change they bring (the file that stood in a skipped
        // item's way, removed elsewhere) is on disk before the item is tried again.
        retry_skipped();
    }
    save_now();
    // The position is reported when it moved (an idle run of `sync --watch` sends nothing).
    if (s_.seq != seq_before || s_.epoch != epoch_before) ack();
}

void SyncEngine::ack() {
    if (s_.seq <= 0) return;
    json::Out o;
    o.kv("pouch_id", s_.pouch_id).kv("epoch", s_.epoch).kv("acked_seq", s_.seq);
    ApiAnswer a = api_.call("PUT", "/v1/devices/me/cursor", o.done());
    // A reset epoch or a seq the pouch no longer has is corrected by the next pull.
    if (!a.ok() && a.status != 409 && a.status != 400)
        throw CliError(kExitFailure, "PUT /v1/devices/me/cursor: " + describe(a));
}

bool SyncEngine::wait_for_events(int seconds, const std::function<bool()>& stop, int wake_fd) {
    CallOptions opt;
    opt.timeout_seconds = seconds + 15;
    opt.wake_fd = wake_fd;
    opt.progress = [&](long long, long long, long long, long long) { return !stop(); };
    try {
        ApiAnswer a = api_.call("GET",
                                "/v1/pouches/" + s_.pouch_id + "/events?epoch=" + s_.epoch +
                                    "&after=" + std::to_string(s_.seq) +
                                    "&limit=1&wait=" + std::to_string(seconds),
                                "", {}, opt);
        if (!a.ok()) return a.status == 409;
        return !jarr(a.data(), "items").Empty();
    } catch (const HttpError& e) {
        if (e.aborted) return false;
        throw;
    }
}

// ---- applying a remote head to the folder --------------------------------------------------

SyncEngine::LocalStatus SyncEngine::local_status(const std::string& local, const FileEntry& e) {
    LocalStatus st;
    auto f = stat_file(root_, local);
    if (!f) return st;
    if (f->size == e.size && f->mtime_ns == e.mtime_ns && (f->mode & 0777) == (e.mode & 0777)) {
        st.kind = LocalStatus::kUnchanged;
        return st;
    }
    st.fp = digest_file(root_, local).fp;
    st.kind = st.fp == e.fp ? LocalStatus::kUnchanged : LocalStatus::kChanged;
    return st;
}

std::string SyncEngine::free_conflict_name(const std::string& name, const std::string& label) {
    std::string date = utc_date(std::time(nullptr));
    try {
        for (int n = 1; n <= 1000; ++n) {
            std::string c =
                fmt::conflict_name(name, label, n == 1 ? date : date + " " + std::to_string(n));
            if (!root_.lstat(c)) return c;
        }
    } catch (const fmt::FormatError& e) {
        throw ItemSkipped("cannot keep both versions of " + shown(name) + ": " + e.what());
    }
    throw ItemSkipped("cannot keep both versions of " + shown(name) +
                      ": every conflict name is taken");
}

std::string SyncEngine::conflict_copy(const std::string& local, const std::string& loses_to) {
    std::string base = to_nfc(local).value_or(local);
    std::string label = trust_.my_label();
    std::string name = free_conflict_name(base, label);
    // NOREPLACE: a file that took the name meanwhile is never overwritten; try the next one.
    while (!root_.rename_noreplace(local, name)) name = free_conflict_name(base, label);
    s_.files.erase(local);
    s_.conflict_of[name] = loses_to;
    ++stats_.conflicts;
    progress_.say("conflict: " + local +
                  " changed here and elsewhere; this device's version is "
                  "kept as \"" +
                  name + "\"");
    return name;
}

void SyncEngine::write_content(const std::string& local, const Revision& h) {
    const fmt::Content& c = h.content;
    std::string shown_path = join_path(s_.root, local);
    auto fill = [&](int fd) {
        if (c.data) {
            write_all_fd(fd, h.plain ? *h.plain : crypto::b64url_decode(*c.data).value_or(""),
                         shown_path);
        } else if (c.chunks) {
            // Up to kAhead chunks are fetched at once; each is written in its turn. What the
            // transfers fill is shared with them: a file given up half-way leaves the others
            // running (a prefetched page of the same pull among them), harmlessly.
            constexpr size_t kAhead = Http::kMaxParallel;
            const auto& chunks = *c.chunks;
            struct Got {
                std::map<size_t, std::string> plain, failed;  // by chunk index
            };
            auto got = std::make_shared<Got>();
            size_t next = 0;
            long long done = 0;
            progress_.begin("pull " + local, c.size);
            try {
                for (size_t i = 0; i < chunks.size(); ++i) {
                    for (; next < chunks.size() && next < i + kAhead; ++next) {
                        CallOptions opt;
                        opt.raw = true;
                        opt.timeout_seconds = 600;
                        const fmt::ChunkRef& ch = chunks[next];
                        api_.start("GET", "/v1/pouches/" + s_.pouch_id + "/blobs/" + ch.blob_id, "",
                                   {}, opt, [got, ch, name = shown(local), n = next](ApiAnswer& a) {
                                       if (!a.ok()) {
                                           got->failed[n] =
                                               "GET blob " + ch.blob_id + ": " + describe(a);
                                           return;
                                       }
                                       try {
                                           got->plain[n] = fmt::open_chunk(ch, a.raw);
                                       } catch (const fmt::FormatError& e) {
                                           got->failed[n] =
                                               "a chunk of " + name + " was refused: " + e.what();
                                       }
                                   });
                    }
                    while (!got->plain.count(i) && !got->failed.count(i) && api_.in_flight() > 0)
                        api_.wait_one();
                    if (got->failed.count(i)) throw ItemSkipped(got->failed[i]);
                    if (!got->plain.count(i))
                        throw CliError(kExitFailure, "a transfer of " + shown(local) + " was lost");
                    write_all_fd(fd, got->plain[i], shown_path);
                    got->plain.erase(i);
                    done += chunks[i].size;
                    progress_.update(done);
                }
            } catch (...) {
                progress_.end();
                throw;
            }
            progress_.end();
        }
    };
    struct stat st = root_.write_file(local, fill, FolderRoot::file_mode(c.mode), c.mtime);
    FileEntry e;
    e.artifact_id = h.artifact_id;
    e.revision_id = h.revision_id;
    e.remote_name = h.content.name;
    e.fp = h.fp;
    e.size = h.content.size;
    e.mtime_ns = static_cast<long long>(st.st_mtim.tv_sec) * 1000000000LL + st.st_mtim.tv_nsec;
    e.mode = static_cast<long long>(st.st_mode & 07777);
    if (h.content.chunks) e.chunks = *h.content.chunks;
    for (const auto& ch : e.chunks) s_.chunk_cache[ch.hash] = ch;
    s_.files.set(local, e);
    ++stats_.downloaded;
    save();
}

void SyncEngine::apply_delete(const Revision& h, const std::string& local) {
    FileEntry& e = s_.files.at(local);
    LocalStatus st = local_status(local, e);
    if (st.kind == LocalStatus::kChanged) {
        // Changed here, deleted elsewhere: keep it; the next push restores it on the tombstone.
        e.revision_id = h.revision_id;
        progress_.say("kept " + local + ": changed here, deleted elsewhere");
        ++stats_.conflicts;
    } else {
        if (st.kind == LocalStatus::kUnchanged) {
            root_.remove_file(local);
            ++stats_.removed;
        }
        s_.files.erase(local);
    }
    save();
}

void SyncEngine::apply_name_clash(const Revision& h, const FileEntry& ours) {
    const std::string& name = h.content.name;
    if (h.artifact_id > ours.artifact_id) {
        std::string alt = free_conflict_name(name, trust_.label_of(h.signer));
        ++stats_.conflicts;
        progress_.say("conflict: two files named " + name + "; the other is kept as \"" + alt +
                      "\"");
        write_content(alt, h);
        s_.files.at(alt).remote_name = name;  // renamed on the server at the next push
        return;
    }
    FileEntry kept = ours;
    std::string alt = free_conflict_name(name, trust_.my_label());
    if (root_.lstat(name) && !root_.rename_noreplace(name, alt))
        throw ItemSkipped("cannot move " + name + " aside: " + alt + " exists");
    s_.files.erase(name);
    s_.files.set(alt, kept);
    ++stats_.conflicts;
    progress_.say("conflict: two files named " + name + "; this device's is kept as \"" + alt +
                  "\"");
    write_content(name, h);
}

void SyncEngine::apply_over_tracked(const Revision& h, FileEntry& e) {
    const std::string& name = h.content.name;
    LocalStatus st = local_status(name, e);
    if (st.kind == LocalStatus::kChanged) {
        if (st.fp == h.fp) {  // the same change on both sides
            auto f = stat_file(root_, name);
            e.revision_id = h.revision_id;
            e.fp = h.fp;
            e.size = h.content.size;
            if (f) e.mtime_ns = f->mtime_ns, e.mode = f->mode;
            return;
        }
        conflict_copy(name, h.revision_id);
    }
    write_content(name, h);
}

void SyncEngine::apply_over_untracked(const Revision& h) {
    const std::string& name = h.content.name;
    auto f = stat_file(root_, name);
    if (!f) return write_content(name, h);
    if (digest_file(root_, name).fp == h.fp) {  // the same file is here already: adopted
        FileEntry e{h.artifact_id,  h.revision_id, name,    h.fp,
                    h.content.size, f->mtime_ns,   f->mode, {}};
        if (h.content.chunks) e.chunks = *h.content.chunks;
        s_.files.set(name, e);
        return;
    }
    conflict_copy(name, h.revision_id);
    write_content(name, h);
}

void SyncEngine::apply_put(const Revision& h, const std::string* prev_local) {
    const std::string& name = h.content.name;
    // A rename's old name: dropped from the state only once the new name is written, so that
    // an item skipped half-way leaves the old file tracked (never pushed again as new).
    std::optional<std::string> drop_after, remove_after;
    if (prev_local && *prev_local != name) {
        std::string old = *prev_local;
        LocalStatus st = local_status(old, s_.files.at(old));
        if (st.kind == LocalStatus::kChanged) {
            conflict_copy(old, h.revision_id);
        } else {
            if (st.kind == LocalStatus::kUnchanged) remove_after = old;
            drop_after = old;
        }
    }
    auto it = s_.files.find(name);
    if (it != s_.files.end() && it->second.artifact_id != h.artifact_id)
        apply_name_clash(h, it->second);
    else if (it != s_.files.end())
        apply_over_tracked(h, it->second);
    else
        apply_over_untracked(h);
    if (drop_after && *drop_after != name) {
        s_.files.erase(*drop_after);
        if (remove_after && !s_.files.count(*remove_after)) root_.remove_file(*remove_after);
    }
    save();
}

void SyncEngine::apply_head(const Revision& h) {
    const std::string* local = s_.local_name_of(h.artifact_id);
    if (local && s_.files.at(*local).revision_id == h.revision_id) return;
    if (h.bad_name)
        throw ItemSkipped("its name \"" + shown(h.content.name) +
                          "\" is not a safe relative path here");
    if (h.deleted()) {
        if (local) apply_delete(h, std::string(*local));
        return;
    }
    if (h.content.kind == "folder") {
        root_.open_dir(h.content.name, true);
        return;
    }
    std::string prev = local ? *local : "";
    apply_put(h, local ? &prev : nullptr);
}

// ---- pushing local changes -----------------------------------------------------------------

std::vector<std::string> SyncEngine::plan_changed(const std::map<std::string, LocalFile>& files,
                                                  const std::string& scope,
                                                  std::vector<Planned>& out) {
    std::vector<std::string> missing;
    bool touched = false;
    for (auto& [local, e] : s_.files) {
        if (!in_scope(local, scope)) continue;
        // An artifact whose remote head could not be applied here waits for it: its local
        // file is neither sent nor deleted until the next pull applies that head.
        if (s_.skipped.count(e.artifact_id)) continue;
        auto it = files.find(local);
        if (it == files.end()) {
            missing.push_back(local);
            continue;
        }
        const LocalFile& f = it->second;
        std::string nfc = to_nfc(local).value_or(local);
        bool renamed = e.remote_name != nfc;
        bool mode_changed = (f.mode & 0777) != (e.mode & 0777);
        if (!renamed && !mode_changed && f.size == e.size && f.mtime_ns == e.mtime_ns) continue;
        if (!renamed && !mode_changed) {
            std::string fp;
            try {
                fp = digest_file(root_, local).fp;
            } catch (const ItemSkipped& err) {
                skip_local(local + ": " + err.what());
                continue;
            }
            if (fp == e.fp) {
                e.mtime_ns = f.mtime_ns;  // touched, not changed
                touched = true;
                continue;
            }
        }
        Planned p;
        p.type = "put";
        p.local = p.prev_local = local;
        p.artifact_id = e.artifact_id;
        p.base = e.revision_id;
        p.file = f;
        p.remote_name = nfc;
        out.push_back(std::move(p));
    }
    if (touched) save();
    return missing;
}

std::set<std::string> SyncEngine::plan_new(const std::map<std::string, LocalFile>& files,
                                           const std::string& scope,
                                           const std::vector<std::string>& missing,
                                           std::vector<Planned>& out) {
    // Tracked files that vanished, by fingerprint: a new file with one of their contents is
    // a move (the first vanished name in name order, as the scan lists them).
    std::unordered_map<std::string, std::deque<std::string>> missing_by_fp;
    for (const auto& m : missing) missing_by_fp[s_.files.at(m).fp].push_back(m);
    std::set<std::string> moved;
    for (const auto& [name, f] : files) {
        if (!in_scope(name, scope) || s_.files.count(name)) continue;
        Planned p;
        p.type = "put";
        p.local = name;
        p.file = f;
        p.remote_name = to_nfc(name).value_or(name);
        std::deque<std::string>* candidates = nullptr;
        if (!missing_by_fp.empty()) {  // only then can it be a move: read it to know
            try {
                auto m = missing_by_fp.find(digest_file(root_, name).fp);
                if (m != missing_by_fp.end() && !m->second.empty()) candidates = &m->second;
            } catch (const ItemSkipped& err) {
                skip_local(name + ": " + err.what());
                continue;
            }
        }
        if (candidates) {
            std::string old = candidates->front();
            candidates->pop_front();
            moved.insert(old);
            p.prev_local = old;
            p.artifact_id = s_.files.at(old).artifact_id;
            p.base = s_.files.at(old).revision_id;
        } else {
            p.artifact_id = crypto::uuid_v4();
            if (auto c = s_.conflict_of.find(name); c != s_.conflict_of.end())
                p.conflict_id = c->second;
        }
        out.push_back(std::move(p));
    }
    return moved;
}

std::vector<SyncEngine::Planned> SyncEngine::plan(const std::string& scope) {
    ScanReport report;
    auto files = scan_folder(root_, &report);
    for (const auto& s : report.skipped) skip_local(s);
    for (const auto& s : report.ignored)
        if (said_.insert(s).second) stats_.messages.push_back("left out: " + s);
    std::vector<Planned> out;
    std::vector<std::string> missing = plan_changed(files, scope, out);
    std::set<std::string> moved = plan_new(files, scope, missing, out);
    for (const auto& local : missing) {
        if (moved.count(local)) continue;
        Planned p;
        p.type = "delete";
        p.local = local;
        p.old = s_.files.at(local);
        p.artifact_id = p.old.artifact_id;
        p.base = p.old.revision_id;
        out.push_back(std::move(p));
    }
    return out;
}

void SyncEngine::upload_chunks(Planned& p, const std::string& name) {
    ChunkReader file(root_.open_read(name), name);
    long long total = 0;
    std::vector<std::string> hashes;
    progress_.begin("push " + p.local, p.file.size);
    for (std::string_view pt = file.next(); !pt.empty(); pt = file.next()) {
        std::string hash = crypto::b64url_encode(crypto::blake3_256(pt));
        hashes.push_back(hash);
        auto cached = s_.chunk_cache.find(hash);
        if (cached != s_.chunk_cache.end()) {
            p.intent.entry.chunks.push_back(cached->second);
            ++stats_.chunks_reused;
        } else {
            fmt::SealedChunk sc = fmt::seal_chunk_hashed(pt, hash);  // hashed once, above
            p.intent.entry.chunks.push_back(sc.entry);
            // Stored in the chunk cache once the server holds it: a killed push reuses what it
            // already uploaded.
            queue_chunk(hash, std::move(sc));
        }
        total += static_cast<long long>(pt.size());
        progress_.update(total);
    }
    progress_.end();
    p.file.size = total;
    p.intent.entry.fp = fingerprint_from_parts(total, "", hashes);
}

struct SyncEngine::Sealed {
    std::string hash;
    fmt::SealedChunk sc;  // sc.stored moves to its upload
    size_t stored_size = 0;
};

void SyncEngine::queue_chunk(std::string hash, fmt::SealedChunk sc) {
    size_t size = sc.stored.size();
    held_bytes_ += size;
    unchecked_.push_back(std::make_shared<Sealed>(Sealed{std::move(hash), std::move(sc), size}));
    if (unchecked_.size() >= kCheckBatch) check_queued();
    while (held_bytes_ > kHeldBytes && api_.in_flight() > 0) api_.wait_one();
}

void SyncEngine::check_queued() {
    if (unchecked_.empty()) return;
    json::Out o;
    o.key("blobs").arr();
    for (const auto& c : unchecked_)
        o.obj()
            .kv("id", c->sc.entry.blob_id)
            .kv("stored_size", static_cast<long long>(c->stored_size))
            .end_obj();
    o.end_arr();
    auto batch = std::make_shared<std::vector<std::shared_ptr<Sealed>>>(std::move(unchecked_));
    unchecked_.clear();
    api_.start("POST", "/v1/pouches/" + s_.pouch_id + "/blobs/check", o.done(), {}, CallOptions{},
               [this, batch](ApiAnswer& chk) {
                   if (chk.status == 403 && chk.code == "quota_exceeded")
                       throw CliError(kExitFailure,
                                      "the account's storage is full: " + describe(chk));
                   if (!chk.ok()) throw CliError(kExitFailure, "blob check: " + describe(chk));
                   std::set<std::string> missing;
                   for (const auto& id : jarr(chk.data(), "missing").GetArray())
                       if (id.IsString()) missing.insert(id.GetString());
                   for (const auto& c : *batch) {
                       if (missing.count(c->sc.entry.blob_id)) {
                           upload(c);
                       } else {
                           ++stats_.chunks_reused;
                           stored(*c);
                       }
                   }
               });
}

void SyncEngine::upload(const std::shared_ptr<Sealed>& c) {
    CallOptions opt;
    opt.content_type = "application/octet-stream";
    opt.timeout_seconds = 600;
    api_.start("PUT", "/v1/pouches/" + s_.pouch_id + "/blobs/" + c->sc.entry.blob_id,
               std::move(c->sc.stored), {}, opt, [this, c](ApiAnswer& up) {
                   if (!up.ok()) throw CliError(kExitFailure, "blob upload: " + describe(up));
                   stats_.bytes_sent += static_cast<long long>(c->stored_size);
                   stored(*c);
               });
}

void SyncEngine::stored(const Sealed& c) {
    s_.chunk_cache[c.hash] = c.sc.entry;
    held_bytes_ -= c.stored_size;
    save();
}

void SyncEngine::flush_chunks() {
    check_queued();
    // Every chunk queued is stored (the commits in flight go on): the next commit names only
    // stored blobs.
    while (held_bytes_ > 0 && api_.in_flight() > 0) api_.wait_one();
}

fmt::Content SyncEngine::put_content(Planned& p) {
    fmt::Content c;
    c.name = p.remote_name;
    c.kind = "file";
    c.mode = p.file.mode & 0777;
    c.mtime = p.file.mtime_ns / 1000000;
    p.intent.entry = FileEntry{};
    if (p.file.size <= fmt::kInlineMax) {
        std::string bytes = read_whole(root_, p.local);
        if (static_cast<long long>(bytes.size()) > fmt::kInlineMax) {
            p.file.size = static_cast<long long>(bytes.size());
            upload_chunks(p, p.local);  // it grew past the inline limit meanwhile
        } else {
            p.file.size = static_cast<long long>(bytes.size());
            c.data = crypto::b64url_encode(bytes);
            p.intent.entry.fp = fingerprint_from_parts(p.file.size, crypto::blake3_256(bytes), {});
        }
    } else {
        upload_chunks(p, p.local);
    }
    if (!p.intent.entry.chunks.empty() || p.file.size > fmt::kInlineMax)
        c.chunks = p.intent.entry.chunks;
    c.size = p.file.size;
    return c;
}

void SyncEngine::build_put(Planned& p) {
    // The key first: nothing of the file is read or uploaded for a write that would be refused.
    std::string key = trust_.write_key(s_.pouch_id, key_gen_);
    fmt::Content c = put_content(p);

    std::string revision_id = crypto::uuid_v4();
    fmt::RevisionIds ids{s_.pouch_id, p.artifact_id, revision_id, key_gen_};
    std::string envelope = fmt::seal_envelope(key, ids, c);
    const crypto::P256PrivateKey& sign = sign_key();
    // The members in JCS order (service_signature).
    json::Out o;
    o.kv("artifact_id", p.artifact_id);
    if (p.base.empty())
        o.kv_null("base_revision_id");
    else
        o.kv("base_revision_id", p.base);
    o.key("blob_ids").arr();
    std::set<std::string> blob_ids;
    for (const auto& ch : p.intent.entry.chunks)
        if (blob_ids.insert(ch.blob_id).second) o.str(ch.blob_id);
    o.end_arr();
    o.kv("conflict_id", p.conflict_id).kv("envelope", envelope).kv("key_gen", key_gen_);
    o.kv_null("merge_parent_id").kv("name_index", fmt::name_index(key, c.name));
    o.kv("revision_id", revision_id).kv("signature", fmt::sign_revision(sign, ids, envelope));
    o.kv("signer_member_id", device_.member_id).kv("type", "put");
    p.op_json = o.done();
    record_put(p, revision_id, c);
}

void SyncEngine::record_put(Planned& p, const std::string& revision_id, const fmt::Content& c) {
    FileEntry& e = p.intent.entry;
    e.artifact_id = p.artifact_id;
    e.revision_id = revision_id;
    e.remote_name = c.name;
    e.size = c.size;
    e.mtime_ns = p.file.mtime_ns;
    e.mode = p.file.mode;
    p.intent.type = "put";
    p.intent.local_name = p.local;
    p.intent.prev_local_name = p.prev_local != p.local ? p.prev_local : "";
}

void SyncEngine::build_delete(Planned& p) {
    std::string key = trust_.write_key(s_.pouch_id, key_gen_);
    std::string revision_id = crypto::uuid_v4();
    fmt::RevisionIds ids{s_.pouch_id, p.artifact_id, revision_id, key_gen_};
    std::string envelope =
        fmt::seal_envelope(key, ids, fmt::tombstone(p.old.remote_name, "file", now_ms()));
    // The members in JCS order (service_signature).
    json::Out o;
    o.kv("artifact_id", p.artifact_id).kv("base_revision_id", p.base);
    o.key("blob_ids").arr().end_arr();
    o.kv_null("conflict_id").kv("envelope", envelope).kv("key_gen", key_gen_);
    o.kv_null("merge_parent_id").kv_null("name_index").kv("revision_id", revision_id);
    o.kv("signature", fmt::sign_revision(sign_key(), ids, envelope));
    o.kv("signer_member_id", device_.member_id).kv("type", "delete");
    p.op_json = o.done();
    p.intent.type = "delete";
    p.intent.local_name = p.local;
    p.intent.entry = p.old;
}

void SyncEngine::send_batches(std::vector<Planned>& ops) {
    const long long gen = key_gen_;  // every op below is sealed under it
    std::vector<Planned*> batch;
    size_t bytes = 0;
    auto flush = [&] {
        if (batch.empty()) return;
        // Its blobs are stored first (a commit naming a missing blob is refused). A second
        // commit is sent before the first is answered only once this run has seen a commit
        // under this generation answered without stale_key_gen; and after a stale answer (or a
        // new epoch) nothing more leaves under the old key: the next round plans it again.
        flush_chunks();
        const int most = confirmed_gen_ == gen ? kCommitsInFlight : 1;
        while (commits_in_flight_ >= most && api_.in_flight() > 0) api_.wait_one();
        if (keys_stale_ || key_gen_ != gen) {
            batch.clear();
            bytes = 0;
            return;
        }
        json::Out o;
        std::string operation_id = crypto::uuid_v4();
        o.kv("epoch", s_.epoch).kv("operation_id", operation_id);  // JCS order
        o.key("ops").arr();
        PendingCommit pc{operation_id, "", {}, {}};
        for (Planned* p : batch) {
            o.raw(p->op_json);
            pc.intents.push_back(p->intent);
        }
        o.end_arr();
        pc.body = o.done();
        // In the journal before it is sent: a rerun resends this very body.
        append_pending(cfg_, s_, std::move(pc));
        start_commit();
        // A push of 100,000 files keeps no op after its batch. Swapped with an empty string,
        // not assigned one: libstdc++'s move assignment from a short (in-place) string keeps
        // the target's heap buffer, and every op's 60 KB envelope of a small file stayed to
        // the end (600 MB of heap, each page faulted in fresh, in a push of 1 GiB).
        for (Planned* p : batch) {
            std::string().swap(p->op_json);
            p->intent = OpIntent{};
        }
        batch.clear();
        bytes = 0;
    };
    for (Planned& p : ops) {
        if (p.type == "put" && !stat_file(root_, p.local)) continue;  // gone since the scan
        try {
            if (p.type == "put")
                build_put(p);
            else
                build_delete(p);
        } catch (const ItemSkipped& e) {
            skip_local(p.local + ": " + e.what());
            continue;
        }
        if (batch.size() == kMaxOps ||
            (!batch.empty() && bytes + p.op_json.size() > kMaxBatchBytes)) {
            flush();
            // The pouch moved to another generation meanwhile (stale_key_gen, or a new epoch):
            // nothing more leaves under the old key -- the next round plans the rest again
            // under the new one.
            if (keys_stale_ || key_gen_ != gen) {
                api_.wait_all();
                return;
            }
        }
        batch.push_back(&p);
        bytes += p.op_json.size();
    }
    flush();
    api_.wait_all();
}

void SyncEngine::commit_pending() {
    const PendingCommit& pc = s_.pending.front();
    std::string sig = fmt::make_service_signature(sign_key(), pc.body);
    std::string operation_id = pc.operation_id;
    ApiAnswer a = api_.call("POST", "/v1/pouches/" + s_.pouch_id + "/operations", pc.body,
                            {"Service-Signature: " + sig});
    record_commit(operation_id, a);
}

void SyncEngine::start_commit() {
    const PendingCommit& pc = s_.pending.back();
    std::string sig = service_signature(sign_key(), pc.body);
    ++commits_in_flight_;
    api_.start("POST", "/v1/pouches/" + s_.pouch_id + "/operations", pc.body,
               {"Service-Signature: " + sig}, CallOptions{},
               [this, id = pc.operation_id, gen = key_gen_](ApiAnswer& a) {
                   --commits_in_flight_;
                   bool stale_before = keys_stale_;
                   record_commit(id, a);
                   if (a.ok() && keys_stale_ == stale_before) confirmed_gen_ = gen;
               });
}

void SyncEngine::record_commit(const std::string& operation_id, ApiAnswer& a) {
    auto it = std::find_if(s_.pending.begin(), s_.pending.end(),
                           [&](const PendingCommit& p) { return p.operation_id == operation_id; });
    if (it == s_.pending.end()) return;  // dropped meanwhile (a new epoch)
    if (a.status == 409 && (a.code == "epoch_mismatch" || a.code == "operation_id_reused")) {
        // The batch can never apply as it is; the next round plans it again.
        progress_.say("a commit was refused (" + a.code + "); planning it again");
        s_.pending.erase(it);
        save();
        if (a.code == "epoch_mismatch") load_pouch();
        return;
    }
    if (!a.ok())
        throw CliError(kExitFailure, "commit: " + describe(a) + " (it is resent next time)");
    kill_point_for_tests();
    const auto& results = jarr(a.data(), "results");
    for (rapidjson::SizeType i = 0; i < results.Size() && i < it->intents.size(); ++i)
        record_result(results[i], it->intents[i]);
    s_.pending.erase(it);  // answered: the next save drops it from the journal
    save();
}

void SyncEngine::record_result(const rapidjson::Value& r, const OpIntent& in) {
    std::string status = jstr(r, "status");
    if (status == "applied") {
        if (in.type == "put") {
            if (!in.prev_local_name.empty()) {
                s_.files.erase(in.prev_local_name);
                ++stats_.renamed;
            } else {
                ++stats_.uploaded;
            }
            s_.files.set(in.local_name, in.entry);
            s_.conflict_of.erase(in.local_name);
            for (const auto& ch : in.entry.chunks) s_.chunk_cache[ch.hash] = ch;
        } else {
            s_.files.erase(in.local_name);
            ++stats_.deleted;
        }
        return;
    }
    std::string code = jopt(r, "code").value_or("");
    if (status == "conflict" || code == "not_found") {
        to_refetch_.push_back(jstr(r, "artifact_id"));
    } else if (code == "stale_key_gen") {
        keys_stale_ = true;
    } else if (code == "missing_blob") {
        for (const auto& ch : in.entry.chunks) s_.chunk_cache.erase(ch.hash);
        to_refetch_.push_back("");  // plan again
    } else {
        ++stats_.refused;
        stats_.messages.push_back(in.local_name + ": refused (" + code + ": " +
                                  jopt(r, "message").value_or("") + ")");
    }
}

bool SyncEngine::may_write() {
    try {
        trust_.check_may_write(s_.pouch_id, key_gen_);
        trust_.write_key(s_.pouch_id, key_gen_);
        return true;
    } catch (const ItemSkipped& e) {
        skip_local(e.what());
        return false;
    }
}

bool SyncEngine::resend_pending() {
    bool resent = false;
    while (!s_.pending.empty()) {
        // A batch sealed under another generation than the current one is not sent again: an
        // honest service refuses it (stale_key_gen), and a rotation since then may have shut
        // out a member who holds its key. Its changes are still on disk and unrecorded, so the
        // plan makes them again. (Checked per batch: an answer may move the generation.)
        if (s_.pending.front().key_gen() != key_gen_) {
            progress_.say(
                "a commit of an interrupted run was sealed under another key generation; "
                "planning it again");
            s_.pending.erase(s_.pending.begin());
            save_now();
            continue;
        }
        if (!resent)
            progress_.say("resending the commit of an interrupted run (" +
                          std::to_string(s_.pending_ops()) + " operations)");
        resent = true;
        commit_pending();
    }
    return resent;
}

void SyncEngine::apply_lost_heads() {
    for (const auto& aid : to_refetch_) {
        if (aid.empty()) continue;
        try {
            auto h = fetch_head(aid);
            if (!h) continue;
            const std::string* local = s_.local_name_of(aid);
            if (local && !h->deleted() && s_.files.at(*local).fp == h->fp) {
                s_.files.at(*local).revision_id = h->revision_id;  // the same content won already
                continue;
            }
            // An entry whose base lost: fetch the winner; our version becomes a copy.
            if (local) {
                FileEntry& e = s_.files.at(*local);
                auto st = local_status(*local, e);
                if (st.kind == LocalStatus::kUnchanged && e.remote_name != *local) {
                    // Only our rename lost: take the new head's content under our name; the
                    // next round renames it again, on that head.
                    std::string keep = *local;
                    write_content(keep, *h);
                    continue;
                }
            }
            apply_head(*h);
        } catch (const ItemSkipped& e) {
            skip(aid, e.what());
        }
    }
}

void SyncEngine::push(const std::string& scope) {
    // The pull of this same run (sync) has just read the pouch: not asked again.
    if (!pulled_) load_pouch();
    // A rolled-back generation is reported even when nothing waits to be sent.
    trust_.check_rollback(s_.pouch_id, key_gen_);
    if (!s_.pending.empty() && !may_write()) return save_now();
    keys_stale_ = false;
    if (resend_pending() && keys_stale_) {
        trust_.fetch_keys(s_.pouch_id);
        load_pouch();
    }
    for (int round = 0; round < kMaxRounds; ++round) {
        to_refetch_.clear();
        keys_stale_ = false;
        auto ops = plan(scope);
        if (ops.empty() || !may_write()) return save_now();
        int refused_before = stats_.refused;
        send_batches(ops);
        if (keys_stale_) {
            trust_.fetch_keys(s_.pouch_id);
            load_pouch();
        }
        apply_lost_heads();
        if (to_refetch_.empty() && !keys_stale_ && stats_.refused > refused_before)
            return save_now();
    }
    // Not a success: what is left was not sent (exit 7, like any item that waits).
    skip_local("the push stopped after " + std::to_string(kMaxRounds) +
               " rounds (the folder or the pouch kept changing); the rest waits for the next run");
    save_now();
}

}  // namespace pouch::cli
