//===- InputFile.cpp - Reading the tools' input files without surprises ---===//

#include "tools/common/InputFile.h"

#include "tools/common/Tensor.h"

#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace kiln;
using namespace kiln::tools;
using plan::Status;
using plan::StatusCode;

static const char *kindOf(mode_t mode) {
  if (S_ISDIR(mode))
    return "a directory";
  if (S_ISCHR(mode))
    return "a character device";
  if (S_ISBLK(mode))
    return "a block device";
  if (S_ISFIFO(mode))
    return "a FIFO";
  if (S_ISSOCK(mode))
    return "a socket";
  return "not a regular file";
}

static Status notRegular(const std::string &path, mode_t mode) {
  return Status(StatusCode::InvalidArgument, "cannot read '" + path +
                                                 "': it is " + kindOf(mode) +
                                                 ", not a regular file");
}

static Status cannotOpen(const std::string &path, int err) {
  return Status(err == ENOENT ? StatusCode::NotFound : StatusCode::IOError,
                "cannot open '" + path + "': " + std::strerror(err));
}

Status kiln::tools::checkInputFile(const std::string &path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0)
    return cannotOpen(path, errno);
  if (!S_ISREG(st.st_mode))
    return notRegular(path, st.st_mode);
  return Status::success();
}

Status kiln::tools::readInputFile(const std::string &path,
                                  std::vector<uint8_t> &out) {
  out.clear();
  // O_NONBLOCK: a FIFO opens at once (and is refused below) instead of
  // waiting for a writer.
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0)
    return cannotOpen(path, errno);
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    int err = errno;
    ::close(fd);
    return Status(StatusCode::IOError,
                  "cannot read '" + path + "': " + std::strerror(err));
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return notRegular(path, st.st_mode);
  }
  uint64_t size = uint64_t(st.st_size);
  if (Status s = checkHostBytes("'" + path + "'", size); !s) {
    ::close(fd);
    return s;
  }
  out.resize(size_t(size));
  size_t done = 0;
  while (done < out.size()) {
    ssize_t n = ::read(fd, out.data() + done, out.size() - done);
    if (n < 0 && (errno == EINTR || errno == EAGAIN))
      continue;
    if (n <= 0) {
      int err = n == 0 ? EIO : errno; // 0: the file shrank while read
      ::close(fd);
      out.clear();
      return Status(StatusCode::IOError,
                    "cannot read '" + path + "': " + std::strerror(err));
    }
    done += size_t(n);
  }
  ::close(fd);
  return Status::success();
}
