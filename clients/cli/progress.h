// progress.h -- what `pouch` tells a person while it works, on stderr: a redrawn bar on a
// terminal, plain lines otherwise (logs, pipes, tests), and nothing at all for --json reads.
#pragma once

#include <string>

namespace pouch::cli {

class Progress {
  public:
    Progress();
    bool tty() const { return tty_; }
    // A transfer of `total` bytes named `label` (a bar on a terminal, one line otherwise).
    void begin(const std::string& label, long long total);
    void update(long long done);
    void end();
    // A line of its own (ends any bar first).
    void say(const std::string& line);

  private:
    void draw(bool force);
    bool tty_;
    std::string label_;
    long long total_ = 0, done_ = 0;
    long long last_draw_ms_ = 0;
    bool active_ = false;
};

std::string human_bytes(long long n);  // "20.0 MB"

}  // namespace pouch::cli
