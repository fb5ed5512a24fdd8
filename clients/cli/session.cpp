// session.cpp -- building a Session (session.h): the device's server checked against the
// plain-HTTP rule (and its warning said) on every run; and the interrupt flag of --watch.
#include "clients/cli/session.h"

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "clients/cli/errors.h"
#include "clients/cli/server_url.h"

namespace pouch::cli {

namespace {

volatile std::sig_atomic_t g_interrupted = 0;

void on_signal(int) {
    g_interrupted = 1;
}

// The device's state, its server held to the rule it was logged in under: plain HTTP to
// another computer only with --insecure-http, which is then said on every run.
DeviceState checked_device(const Config& cfg) {
    DeviceState d = cfg.load_device();
    ServerUrl u;
    try {
        u = parse_server_url(d.server);
        require_transport(u, d.insecure_http);
    } catch (const CliError& e) {
        throw CliError(kExitFailure, std::string("device.json: ") + e.what() +
                                         "; run `pouch logout --local`, then log in again");
    }
    if (!u.https && !u.loopback)
        std::fprintf(stderr, "pouch: %s\n", insecure_http_warning(u).c_str());
    return d;
}

}  // namespace

Config config_from(const Args& a) {
    if (auto d = a.get("config")) return Config(*d);
    return Config(Config::default_dir());
}

std::optional<std::string> ca_file_option(const Args& a) {
    auto given = a.get("ca-file");
    if (!given) return std::nullopt;
    if (given->empty()) throw CliError(kExitUsage, "--ca-file needs a file name");
    std::error_code ec;
    std::string path = std::filesystem::absolute(*given, ec).string();
    if (ec) throw CliError(kExitUsage, "--ca-file " + *given + ": " + ec.message());
    std::ifstream f(path, std::ios::binary);
    char c;
    if (!f || !f.get(c))
        throw CliError(kExitUsage,
                       "--ca-file " + path + ": cannot read it (" + std::strerror(errno) + ")");
    return path;
}

// The HTTP client's trust anchors: --ca-file for this run, else the one the login pinned,
// else the system's.
Session::Session(const Args& a)
    : cfg(config_from(a)),
      device(checked_device(cfg)),
      sign(cfg.sign_key()),
      api(http, cfg, device, sign),
      trust(api, cfg, device),
      ids(api, cfg, device, trust, sign) {
    http.set_ca_file(ca_file_option(a).value_or(device.ca_file));
    trust.set_shared(&ids);
}

bool interrupted() {
    return g_interrupted != 0;
}

void install_interrupt_handler() {
    struct sigaction sa {};
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, nullptr);
    sigaction(SIGTERM, &sa, nullptr);
}

}  // namespace pouch::cli
