// trust.h -- what the CLI trusts, and how it earns it: the roster fetched and verified as a
// chain (docs/CLIENT-FORMAT.md), checked against the pinned head and then re-pinned; and the
// pouch keys opened from this member's key envelopes, accepted only when their creator's
// signature verifies with a key of the verified roster. Opened keys are kept in keys.json.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>

#include "clients/cli/api.h"
#include "clients/cli/config.h"
#include "common/clientfmt/roster.h"

namespace pouch::cli {

class Trust {
  public:
    Trust(Api& api, const Config& cfg, DeviceState& device);

    // The verified roster (fetched once per process unless reload() is called). Throws
    // CliError kExitIntegrity when the chain does not verify or the pin moved, and
    // kExitNeedLogin when this device's member has been removed.
    const clientfmt::Roster& roster();
    void reload();

    // A member's keys for verifying its signatures: any member the roster ever added (a
    // revision or envelope written before its removal stays valid). kExitIntegrity if unknown.
    const clientfmt::Member& signer(const std::string& member_id);

    // This device's roster label (its device name at approval), for conflict copies.
    std::string my_label();

    // The pouch key of (pouch, key_gen): from keys.json, else fetched from the server's
    // envelopes for this member (at most once per generation and process: many artifacts of
    // a generation this device was never given cost one fetch). MissingKey when none was
    // sealed to this member; kExitIntegrity when an envelope does not verify or open.
    std::string pouch_key(const std::string& pouch_id, long long key_gen);
    bool has_key(const std::string& pouch_id, long long key_gen);
    // Fetches every envelope of this member for the pouch (all pouches when empty) and
    // opens the new ones; returns how many keys were added.
    int fetch_keys(const std::string& pouch_id = "");

  private:
    Api& api_;
    const Config& cfg_;
    DeviceState& device_;
    std::optional<clientfmt::Roster> roster_;
    std::optional<Keyring> keys_;
    std::map<std::string, std::set<long long>> looked_for_;  // pouch -> generations fetched for
};

}  // namespace pouch::cli
