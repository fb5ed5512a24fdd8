// identity.h -- account identities as the CLI holds them (docs/SHARING.md §1, §3, §10): this
// account's identity, opened from this member's identity envelope and kept in identity.pem
// and identity-enc.pem; the identities of other accounts, pinned on first use in
// identities.json and compared on every later use; and the safety number of two of them.
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <string>

#include "clients/cli/api.h"
#include "clients/cli/config.h"
#include "clients/cli/trust.h"
#include "common/clientfmt/sharing.h"

namespace pouch::cli {

// What identities.json keeps of one account.
struct Pin {
    std::string genesis_hash;
    clientfmt::PublicJwk sign_pub, enc_pub;
    bool verified = false;  // the person said they compared the safety number
};

// How a use of an identity compares with its pin.
enum class PinState { first_use, same, changed };

class Identities : public SharedAccess {
  public:
    Identities(Api& api, const Config& cfg, DeviceState& device, Trust& trust,
               const crypto::P256PrivateKey& member_sign);

    // SharedAccess (trust.h), from the verified access list and the other accounts' rosters
    // (`GET /v1/pouches/{id}/rosters/{account}`, verified as a chain and bound to the account's
    // identity by its identity statement, which `…/members` carries).
    bool is_shared(const std::string& pouch_id) override;
    bool may_write_at(const std::string& pouch_id, const std::string& account_id,
                      long long key_gen) override;
    const clientfmt::Member& other_signer(const std::string& pouch_id, const std::string& member_id,
                                          long long key_gen) override;
    int fill_keys(const std::string& pouch_id) override;
    void reload(const std::string& pouch_id) override;

    // This account's identity: its statement, verified against the account's own verified
    // roster (statement 0 and `by` still active), and its private keys, opened from this
    // member's identity envelope (or the files of an earlier opening, checked against the
    // statement). CliError kExitFailure when the account has no identity yet (the web app makes
    // it at the next sign-in), kExitIntegrity when it does not verify or changed.
    const clientfmt::PublicIdentity& mine();
    const clientfmt::IdentityKeys& my_keys();

    // The identity of another account, given its identity statement and the genesis it came
    // with: verified (SHARING.md §1), then compared with the pin. A first use pins it. A
    // changed identity throws CliError kExitIntegrity naming the account, unless accept_new,
    // which re-pins it (verified false).
    struct Checked {
        clientfmt::PublicIdentity identity;
        std::string genesis_hash;
        PinState state = PinState::first_use;
        bool verified = false;
    };
    Checked check(const std::string& account_id, const clientfmt::SignedStatement& identity,
                  const clientfmt::SignedStatement& genesis, bool accept_new = false);

    // An identity named by a verified access list (no statement to check): compared with the
    // pin like check(); a first use pins it without a genesis hash.
    PinState check_listed(const clientfmt::PublicIdentity& id);

    // Marks a pinned account verified (after the person compared safety numbers).
    void mark_verified(const std::string& account_id);

    std::optional<Pin> pin_of(const std::string& account_id);

    // The access list of a shared pouch (`GET /v1/pouches/{id}/access`), verified in full
    // (SHARING.md §4), its head checked against the one pinned before (the list only grows)
    // and pinned again, each account's identity compared with its pin. Cached per process
    // until reload_access. nullopt for a pouch that was never shared (an empty list).
    // CliError kExitIntegrity when it does not verify, shrank, or names a changed identity.
    const std::optional<clientfmt::AccessList>& access_list(const std::string& pouch_id);
    void reload_access(const std::string& pouch_id);

    // The keys granted to this account for a shared pouch (after accepting it, and after a
    // rotation by another account) sealed again to each active member of this account
    // (SHARING.md §5): every grant checked against the verified access list first (a refused
    // one is reported on stderr and skipped). A member that has its envelope already is left
    // as it is. Returns how many envelopes were stored.
    int fill_from_grants(const std::string& pouch_id, const crypto::P256PrivateKey& member_sign);

  private:
    std::map<std::string, Pin>& pins();
    const clientfmt::Roster* roster_of(const std::string& pouch_id, const std::string& account_id);
    void save_pins();
    Api& api_;
    const Config& cfg_;
    DeviceState& device_;
    Trust& trust_;
    const crypto::P256PrivateKey& member_sign_;
    std::map<std::string, std::optional<clientfmt::Roster>> rosters_;        // pouch/account ->
    std::map<std::string, std::chrono::steady_clock::time_point> reloaded_;  // pouch ->
    std::optional<clientfmt::PublicIdentity> mine_;
    std::optional<clientfmt::IdentityKeys> keys_;
    std::optional<std::map<std::string, Pin>> pins_;
    std::map<std::string, std::pair<long long, std::string>> heads_;  // pouch -> pinned head
    std::map<std::string, std::optional<clientfmt::AccessList>> lists_;
};

// "12345 67890 …" in three rows of four groups, for a terminal.
std::string safety_number_rows(const clientfmt::PublicIdentity& a,
                               const clientfmt::PublicIdentity& b);

}  // namespace pouch::cli
