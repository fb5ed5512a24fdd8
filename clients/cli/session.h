// session.h -- everything a command of an enrolled device works with, built once: the config
// directory, the device's state and signing key, the HTTP client, the API client with token
// refresh, and the verified roster and pouch keys.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "clients/cli/api.h"
#include "clients/cli/args.h"
#include "clients/cli/config.h"
#include "clients/cli/http.h"
#include "clients/cli/identity.h"
#include "clients/cli/progress.h"
#include "clients/cli/trust.h"

namespace pouch::cli {

Config config_from(const Args& a);

// `--ca-file PATH` made absolute, after checking the file can be read (CliError kExitUsage
// otherwise); nullopt when the option is not given.
std::optional<std::string> ca_file_option(const Args& a);

struct Session {
    Config cfg;
    DeviceState device;
    crypto::P256PrivateKey sign;
    Http http;
    Api api;
    Trust trust;
    Identities ids;  // installed in trust for shared pouches
    Progress progress;

    explicit Session(const Args& a);  // CliError kExitNeedLogin when not logged in
};

// Command entry points (one file each); each returns an exit code.
int cmd_login(const Args& a);
int cmd_logout(const Args& a);
int cmd_status(const Args& a);
int cmd_devices(const Args& a);
int cmd_rename(const Args& a);
int cmd_ls(const Args& a);
int cmd_push(const Args& a);
int cmd_pull(const Args& a);
int cmd_sync(const Args& a);
int cmd_shared(const Args& a);
int cmd_invitations(const Args& a);
int cmd_members(const Args& a);
int cmd_verify(const Args& a);

// Set by SIGINT/SIGTERM while `sync --watch` runs.
bool interrupted();
void install_interrupt_handler();

}  // namespace pouch::cli
