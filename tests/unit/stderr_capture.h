// stderr_capture.h -- what a piece of code writes on stderr (where common/log writes its JSON
// lines), for tests that assert on log lines: stderr is pointed at a temporary file while
// `fn` runs.
#pragma once

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>

namespace pouch::testing {

inline std::string capture_stderr(const std::function<void()>& fn) {
    std::fflush(stderr);
    int saved = ::dup(2);
    char path[] = "/tmp/pouch-log-XXXXXX";
    int fd = ::mkstemp(path);
    ::dup2(fd, 2);
    fn();
    std::fflush(stderr);
    ::dup2(saved, 2);
    ::close(saved);
    std::string out;
    char buf[4096];
    ::lseek(fd, 0, SEEK_SET);
    ssize_t n;
    while ((n = ::read(fd, buf, sizeof buf)) > 0) out.append(buf, static_cast<size_t>(n));
    ::close(fd);
    ::unlink(path);
    return out;
}

}  // namespace pouch::testing
