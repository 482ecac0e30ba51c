//===- FileIO.cpp - Reading whole files, writing them atomically ----------===//

#include "kiln/Plan/PlanIO.h"

#include "PlanInternal.h"

#include <atomic>
#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace kiln::plan;
using namespace kiln::plan::detail;

static bool writeAll(int fd, const void *data, size_t size) {
  const uint8_t *p = static_cast<const uint8_t *>(data);
  while (size) {
    ssize_t n = ::write(fd, p, size);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      if (n == 0)
        errno = EIO;
      return false;
    }
    p += n;
    size -= size_t(n);
  }
  return true;
}

Status kiln::plan::writeFileAtomically(const std::string &path,
                                       const std::vector<ByteSpan> &pieces,
                                       const std::string &what) {
  // A unique name in the same directory, so that rename() is atomic.
  static std::atomic<unsigned> counter{0};
  std::string tmp;
  int fd = -1;
  for (int attempt = 0; attempt < 100 && fd < 0; ++attempt) {
    tmp = path + ".tmp." + std::to_string(::getpid()) + "." +
          std::to_string(counter++);
    fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0 && errno != EEXIST)
      return ioError("cannot create temporary file", tmp, errno);
  }
  if (fd < 0)
    return ioError("cannot create temporary file", tmp, EEXIST);

  auto fail = [&](const char *why) {
    int err = errno;
    if (fd >= 0)
      ::close(fd);
    ::unlink(tmp.c_str());
    return ioError("cannot write " + what + ": " + why, path, err);
  };
  for (const ByteSpan &piece : pieces)
    if (!writeAll(fd, piece.data, piece.size))
      return fail("write failed");
  if (::fsync(fd) != 0)
    return fail("fsync failed");
  int closeResult = ::close(fd);
  fd = -1;
  if (closeResult != 0)
    return fail("close failed");
  if (::rename(tmp.c_str(), path.c_str()) != 0)
    return fail("rename failed");

  // Persist the rename itself; failures here do not undo a complete write.
  std::string dir = path.substr(0, path.find_last_of('/') + 1);
  int dirFd = ::open(dir.empty() ? "." : dir.c_str(),
                     O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dirFd >= 0) {
    ::fsync(dirFd);
    ::close(dirFd);
  }
  return Status::success();
}

Status kiln::plan::readFile(const std::string &path,
                            std::vector<uint8_t> &out) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return Status(errno == ENOENT ? StatusCode::NotFound : StatusCode::IOError,
                  "cannot open '" + path + "': " + std::strerror(errno));
  struct stat st;
  int statResult = ::fstat(fd, &st);
  if (statResult != 0 || !S_ISREG(st.st_mode)) {
    int err = statResult != 0 ? errno : S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
    ::close(fd);
    return ioError("cannot read", path, err);
  }
  out.resize(size_t(st.st_size));
  size_t done = 0;
  while (done < out.size()) {
    ssize_t n = ::read(fd, out.data() + done, out.size() - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      int err = n == 0 ? EIO : errno;
      ::close(fd);
      return ioError("cannot read", path, err);
    }
    done += size_t(n);
  }
  ::close(fd);
  return Status::success();
}
