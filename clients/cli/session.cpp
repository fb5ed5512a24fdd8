// session.cpp -- building a Session (session.h), and the interrupt flag of --watch.
#include "clients/cli/session.h"

#include <csignal>

namespace pouch::cli {

namespace {

volatile std::sig_atomic_t g_interrupted = 0;

void on_signal(int) {
    g_interrupted = 1;
}

}  // namespace

Config config_from(const Args& a) {
    if (auto d = a.get("config")) return Config(*d);
    return Config(Config::default_dir());
}

Session::Session(const Args& a)
    : cfg(config_from(a)),
      device(cfg.load_device()),
      sign(cfg.sign_key()),
      api(http, cfg, device, sign),
      trust(api, cfg, device) {}

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
