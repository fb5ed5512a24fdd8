// progress.cpp -- progress bars and lines (progress.h), redrawn at most ten times a second.
// Labels and lines are defanged: they name files and members that came from elsewhere.
#include "clients/cli/progress.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "clients/cli/terminal_text.h"

namespace pouch::cli {

namespace {

long long now_ms() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

}  // namespace

std::string human_bytes(long long n) {
    const char* units[] = {"B", "KB", "MB", "GB", "TB"};
    double v = static_cast<double>(n);
    int u = 0;
    while (v >= 1000 && u < 4) {
        v /= 1000;
        ++u;
    }
    char buf[32];
    if (u == 0)
        std::snprintf(buf, sizeof buf, "%lld B", n);
    else
        std::snprintf(buf, sizeof buf, "%.1f %s", v, units[u]);
    return buf;
}

Progress::Progress() : tty_(::isatty(STDERR_FILENO) == 1) {}

void Progress::begin(const std::string& label, long long total) {
    end();
    label_ = defang(label);
    total_ = total;
    done_ = 0;
    active_ = true;
    if (tty_)
        draw(true);
    else
        std::fprintf(stderr, "%s (%s)\n", label_.c_str(), human_bytes(total).c_str());
}

void Progress::update(long long done) {
    done_ = done;
    if (tty_ && active_) draw(false);
}

void Progress::end() {
    if (!active_) return;
    if (tty_) {
        done_ = total_;
        draw(true);
        std::fputc('\n', stderr);
    }
    active_ = false;
}

void Progress::say(const std::string& line) {
    if (active_ && tty_) std::fputs("\r\033[K", stderr);
    std::fprintf(stderr, "%s\n", defang(line).c_str());
    if (active_ && tty_) draw(true);
}

void Progress::draw(bool force) {
    long long t = now_ms();
    if (!force && t - last_draw_ms_ < 100) return;
    last_draw_ms_ = t;
    const int width = 24;
    int filled = total_ > 0 ? static_cast<int>(width * std::min(done_, total_) / total_) : width;
    int pct = total_ > 0 ? static_cast<int>(100 * std::min(done_, total_) / total_) : 100;
    std::string bar(static_cast<size_t>(filled), '#');
    bar.append(static_cast<size_t>(width - filled), '.');
    // The last 37 characters of a longer label (never half a character), padded to 40.
    size_t n = char_count(label_);
    std::string label = n > 40 ? "..." + last_chars(label_, 37) : label_;
    label.append(40 - std::min<size_t>(n, 40), ' ');
    std::fprintf(stderr, "\r\033[K%s [%s] %3d%% %s/%s", label.c_str(), bar.c_str(), pct,
                 human_bytes(done_).c_str(), human_bytes(total_).c_str());
    std::fflush(stderr);
}

}  // namespace pouch::cli
