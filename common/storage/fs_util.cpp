// fs_util.cpp -- see fs_util.h.
#include "common/storage/fs_util.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace pouch::storage {

void io_failure(const std::string& what, const std::string& path) {
    throw std::runtime_error(what + " " + path + ": " + std::strerror(errno));
}

bool ensure_dir(const std::string& path) {
    if (::mkdir(path.c_str(), 0750) == 0) return true;
    if (errno == EEXIST) return false;
    io_failure("mkdir", path);
}

void fsync_dir(const std::string& path) {
    int fd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) io_failure("open", path);
    int rc = ::fsync(fd);
    ::close(fd);
    if (rc != 0) io_failure("fsync", path);
}

bool modified_before(const std::string& path, std::time_t cutoff) {
    struct stat st {};
    return ::lstat(path.c_str(), &st) == 0 && st.st_mtime < cutoff;
}

}  // namespace pouch::storage
