// trust.h -- what the CLI trusts, and how it earns it: the roster fetched and verified as a
// chain (docs/CLIENT-FORMAT.md), checked against the pinned head and then re-pinned; pouch keys
// opened from this member's key envelopes, each checked in full (pouch, member, generation,
// creator trusted at that generation, signature, HPKE) and kept in keys.json with its creator
// and the pouch's highest generation; revision signers checked the same way; and the one
// decision of which key a write may use (never below the highest generation held).
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>

#include "clients/cli/api.h"
#include "clients/cli/config.h"
#include "clients/cli/errors.h"
#include "common/clientfmt/key_envelope.h"
#include "common/clientfmt/roster.h"

namespace pouch::cli {

// A revision or a key envelope refused as untrusted (a bad signature, a signer or creator not
// in the roster or removed with a rotated_to at or below its generation, an envelope for
// another pouch or member, one that does not open, a revision whose service-given kind
// disagrees with its content). Like a missing key it stops that item only: the sync skips and
// reports it and goes on; exit 7 (done with skipped items) when it ends a command.
struct UntrustedItem : ItemSkipped {
    using ItemSkipped::ItemSkipped;
};

// Nothing may be written to the pouch now: the key of its current generation was made by a
// member since removed (it may have made it after its removal, below its rotated_to), so the
// writes wait for a key rotation by a member that stays. The local changes stay; exit 7
// (done with skipped items).
struct WriteHeld : ItemSkipped {
    using ItemSkipped::ItemSkipped;
};

// What Trust asks about a pouch shared between accounts (docs/SHARING.md §4, §10);
// clients/cli/identity.h's Identities answers, from the pouch's verified access list.
class SharedAccess {
  public:
    virtual ~SharedAccess() = default;
    // Whether the pouch has an access list (it was shared).
    virtual bool is_shared(const std::string& pouch_id) = 0;
    // Whether the access list lets `account_id` write at key_gen (role write or admin).
    virtual bool may_write_at(const std::string& pouch_id, const std::string& account_id,
                              long long key_gen) = 0;
    // A member of another account of the list, from that account's verified roster (bound to
    // its identity), trusted at key_gen; UntrustedItem when it is none.
    virtual const clientfmt::Member& other_signer(const std::string& pouch_id,
                                                  const std::string& member_id,
                                                  long long key_gen) = 0;
    // Seals the keys granted to this account to its members (after a rotation by another
    // account); how many envelopes were stored.
    virtual int fill_keys(const std::string& pouch_id) = 0;
    // Forgets what this process verified of the pouch's access list and the other accounts'
    // rosters (a long `sync --watch` meets shares, roles and removals made since).
    virtual void reload(const std::string& pouch_id) = 0;
};

class Trust {
  public:
    Trust(Api& api, const Config& cfg, DeviceState& device);

    // The verified roster (fetched once per process unless reload() is called). Throws
    // CliError kExitIntegrity when the chain does not verify or the pin moved, and
    // kExitNeedLogin when this device's member has been removed.
    const clientfmt::Roster& roster();
    void reload();

    // The roster label of a member (any the roster ever added), "" when unknown: the other
    // side's name in a conflict copy. Another member's text: conflict_name reduces it.
    std::string label_of(const std::string& member_id);

    // The signer of a revision of the pouch written under key_gen: a member of the verified
    // roster that is trusted at key_gen (active, or removed with rotated_to > key_gen); in a
    // shared pouch also a member of another account of the access list, and either way one
    // whose account's role at key_gen allowed writes. UntrustedItem if not.
    const clientfmt::Member& revision_signer(const std::string& pouch_id,
                                             const std::string& member_id, long long key_gen);

    // Installs the access-list checks of shared pouches (Session does, with its Identities).
    void set_shared(SharedAccess* shared) { shared_ = shared; }
    // UntrustedItem-like WriteHeld when this account's role in a shared pouch does not allow
    // writing at key_gen (read): nothing is sent, the local changes stay.
    void check_may_write(const std::string& pouch_id, long long key_gen);

    // This device's roster label (its device name at approval), for conflict copies.
    std::string my_label();

    // The pouch key of (pouch, key_gen) for reading: from keys.json, else fetched from the
    // server's envelopes for this member (at most once per generation and process: many
    // artifacts of a generation this device was never given cost one fetch). MissingKey when
    // none was sealed to this member; UntrustedItem when the envelopes offered were refused,
    // or the key's creator is no longer trusted at that generation.
    std::string pouch_key(const std::string& pouch_id, long long key_gen);
    bool has_key(const std::string& pouch_id, long long key_gen);

    // The key a write (a put or a delete) uses, when the service names `server_gen` as the
    // pouch's current generation. Refuses, writing nothing to that pouch:
    // - CliError kExitIntegrity ("rollback") when server_gen is below the highest generation
    //   this device holds for the pouch;
    // - WriteHeld when the key of server_gen was made by a member now removed;
    // - MissingKey / UntrustedItem as pouch_key.
    std::string write_key(const std::string& pouch_id, long long server_gen);
    // The rollback check alone (no fetch): CliError kExitIntegrity when server_gen is below the
    // highest generation keys.json holds for the pouch. For a push with nothing to send.
    void check_rollback(const std::string& pouch_id, long long server_gen);

    // Fetches every envelope of this member for the pouch (all pouches when empty), checks
    // and opens the new ones (and those keys.json holds without a creator); returns how many
    // keys were added. Refused envelopes are remembered (refusal()) and skipped.
    int fetch_keys(const std::string& pouch_id = "");

    // Why the envelopes of (pouch, key_gen) were refused in this process, or "".
    std::string refusal(const std::string& pouch_id, long long key_gen) const;

  private:
    Keyring& keys();
    const HeldKey* verified_key(const std::string& pouch_id, long long key_gen);
    // fetch_keys, one pouch at a time: its envelopes for this member as listed (a malformed one
    // is remembered as refused); why one may not be opened, in words, "" when it may (its
    // generation, pouch, member and creator; the roster is fetched again once per fetch_keys
    // for a creator it does not know yet); the opening into keys.json's keyring (a new key,
    // or the creator of a key a version 1 file held without one), with the refusal in words;
    // and the keys still without a creator dropped (true when any was).
    std::vector<clientfmt::KeyEnvelope> list_envelopes(const std::string& pouch_id);
    std::string envelope_refused(const clientfmt::KeyEnvelope& e, const std::string& pouch_id,
                                 bool& reloaded);
    std::string open_into_keys(const std::string& pouch_id, const clientfmt::KeyEnvelope& e,
                               const crypto::P256PrivateKey& enc, int& added, bool& changed);
    bool drop_unverified(const std::string& pouch_id);

    Api& api_;
    const Config& cfg_;
    DeviceState& device_;
    SharedAccess* shared_ = nullptr;
    std::optional<clientfmt::Roster> roster_;
    std::optional<Keyring> keys_;
    std::map<std::string, std::set<long long>> looked_for_;  // pouch -> generations fetched for
    std::map<std::string, std::map<long long, std::string>> refused_;  // pouch -> gen -> why
};

}  // namespace pouch::cli
