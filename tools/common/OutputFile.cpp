//===- OutputFile.cpp - Atomic, checked writes of the tools' outputs ------===//

#include "tools/common/OutputFile.h"

#include <atomic>
#include <cerrno>
#include <climits>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <iterator>

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace kiln;
using namespace kiln::tools;
using plan::ByteSpan;
using plan::Status;
using plan::StatusCode;

namespace {

std::atomic<bool> gUnnamedTemporaries{true};

Status cannotWrite(const std::string &path, const std::string &why,
                   StatusCode code = StatusCode::IOError) {
  return Status(code, "cannot write '" + path + "': " + why);
}

Status refused(const std::string &path, const std::string &why) {
  return cannotWrite(path, why, StatusCode::InvalidArgument);
}

/// "dir/" of "dir/name" ("" for "name"), and "name".
std::string dirOf(const std::string &path) {
  size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? "" : path.substr(0, slash + 1);
}
std::string baseOf(const std::string &path) {
  size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

const char *kindOf(mode_t mode) {
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

/// Where writing `path` goes: the path itself or a symbolic link's target,
/// and that file's status if it exists.
struct Target {
  std::string path;
  bool exists = false;
  struct stat st {};
};

Status resolve(const std::string &path,
               const std::vector<ProtectedInput> &inputs, Target &target) {
  if (path.empty())
    return refused(path, "no file name given");
  target.path = path;
  struct stat st;
  if (::lstat(path.c_str(), &st) != 0) {
    if (errno != ENOENT)
      return cannotWrite(path, std::strerror(errno));
    // A new file: its directory must be there (whether it may be written
    // shows when the temporary is created).
    std::string dir = dirOf(path);
    struct stat d;
    if (!dir.empty() && ::stat(dir.c_str(), &d) != 0)
      return cannotWrite(path, "its directory '" + dir +
                                   "' cannot be used: " + std::strerror(errno));
    if (!dir.empty() && !S_ISDIR(d.st_mode))
      return cannotWrite(path, "'" + dir + "' is not a directory");
    return Status::success();
  }
  if (S_ISLNK(st.st_mode)) {
    char real[PATH_MAX];
    if (!::realpath(path.c_str(), real)) {
      int err = errno;
      char link[PATH_MAX];
      ssize_t n = ::readlink(path.c_str(), link, sizeof(link) - 1);
      std::string to = n > 0 ? std::string(link, size_t(n)) : "?";
      if (err == ENOENT)
        return refused(path, "it is a symbolic link to '" + to +
                                 "', which does not exist; give the path "
                                 "to write, or remove the link");
      return cannotWrite(
          path, "it is a symbolic link to '" + to +
                    "', which cannot be followed: " + std::strerror(err));
    }
    target.path = real;
    if (::stat(real, &st) != 0) {
      if (errno != ENOENT)
        return cannotWrite(path, std::strerror(errno));
      return refused(path, "it is a symbolic link to '" + target.path +
                               "', which does not exist");
    }
  }
  if (!S_ISREG(st.st_mode))
    return refused(path, std::string("it is ") + kindOf(st.st_mode) +
                             "; outputs are written only to regular files "
                             "or new paths");
  target.exists = true;
  target.st = st;
  for (const ProtectedInput &input : inputs) {
    struct stat in;
    if (input.path.empty() || ::stat(input.path.c_str(), &in) != 0)
      continue;
    if (in.st_dev == st.st_dev && in.st_ino == st.st_ino)
      return refused(path, "it would overwrite the " + input.what + " '" +
                               input.path + "'" +
                               (input.path == path ? "" : " (the same file)") +
                               "; give another output path");
  }
  return Status::success();
}

/// The named temporary being written, for the signal handler.
char gTemporary[PATH_MAX];
volatile sig_atomic_t gHasTemporary = 0;
constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};

extern "C" void removeTemporaryAndDie(int sig) {
  if (gHasTemporary)
    ::unlink(gTemporary);
  // SA_RESETHAND restored the default action: die of the signal as if no
  // handler had been there.
  ::raise(sig);
}

/// Removes the named temporary on every exit path but SIGKILL: on
/// destruction (errors) and on the signals that end a tool by default.
class NamedTemporary {
public:
  NamedTemporary() = default;
  NamedTemporary(const NamedTemporary &) = delete;
  NamedTemporary &operator=(const NamedTemporary &) = delete;
  ~NamedTemporary() { release(/*remove=*/true); }

  /// Takes charge of `path` (already created).
  void adopt(const std::string &path) {
    path_ = path;
    if (path.size() >= sizeof(gTemporary))
      return; // too long to hand to the handler; the stale sweep gets it
    std::memcpy(gTemporary, path.c_str(), path.size() + 1);
    gHasTemporary = 1;
    for (size_t i = 0; i < std::size(kSignals); ++i) {
      struct sigaction now;
      if (::sigaction(kSignals[i], nullptr, &now) != 0 ||
          now.sa_handler != SIG_DFL)
        continue; // ignored or handled by the tool: leave it so
      struct sigaction ours {};
      ours.sa_handler = removeTemporaryAndDie;
      ours.sa_flags = SA_RESETHAND;
      sigemptyset(&ours.sa_mask);
      installed_[i] = ::sigaction(kSignals[i], &ours, nullptr) == 0;
    }
  }
  /// Done with the temporary: renamed (remove = false) or failed.
  void release(bool remove) {
    if (path_.empty())
      return;
    for (size_t i = 0; i < std::size(kSignals); ++i)
      if (installed_[i]) {
        struct sigaction dfl {};
        dfl.sa_handler = SIG_DFL;
        sigemptyset(&dfl.sa_mask);
        ::sigaction(kSignals[i], &dfl, nullptr);
        installed_[i] = false;
      }
    gHasTemporary = 0;
    if (remove)
      ::unlink(path_.c_str());
    path_.clear();
  }

private:
  std::string path_;
  bool installed_[std::size(kSignals)] = {};
};

bool writeAll(int fd, const std::vector<ByteSpan> &pieces) {
  for (const ByteSpan &piece : pieces) {
    const uint8_t *p = piece.data;
    size_t left = piece.size;
    while (left) {
      ssize_t n = ::write(fd, p, left);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0) {
        if (n == 0)
          errno = EIO;
        return false;
      }
      p += n;
      left -= size_t(n);
    }
  }
  return true;
}

std::atomic<unsigned> gCounter{0};

/// PATH.tmp.PID.N, the plan library's naming too (so that its leftovers are
/// swept as well).
std::string temporaryName(const std::string &path) {
  return path + ".tmp." + std::to_string(::getpid()) + "." +
         std::to_string(gCounter++);
}

/// Writes, fsyncs and sets the mode of the open temporary `fd`.
bool fill(int fd, const std::vector<ByteSpan> &pieces, const Target &target,
          const char *&step) {
  step = "write failed";
  if (!writeAll(fd, pieces))
    return false;
  if (target.exists) {
    step = "cannot keep the file's permissions";
    if (::fchmod(fd, target.st.st_mode & 07777) != 0)
      return false;
  }
  step = "fsync failed";
  return ::fsync(fd) == 0;
}

/// Links the unnamed temporary `fd` in as a PATH.tmp.PID.N name.
bool linkUnnamed(int fd, const std::string &name) {
  if (::linkat(fd, "", AT_FDCWD, name.c_str(), AT_EMPTY_PATH) == 0)
    return true;
  // AT_EMPTY_PATH needs CAP_DAC_READ_SEARCH; /proc does not.
  std::string self = "/proc/self/fd/" + std::to_string(fd);
  return ::linkat(AT_FDCWD, self.c_str(), AT_FDCWD, name.c_str(),
                  AT_SYMLINK_FOLLOW) == 0;
}

void syncDirectory(const std::string &dir) {
  int fd = ::open(dir.empty() ? "." : dir.c_str(),
                  O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd >= 0) {
    ::fsync(fd); // failures here do not undo a complete write
    ::close(fd);
  }
}

} // namespace

void kiln::tools::setTemporaryFileForTesting(TemporaryFile kind) {
  gUnnamedTemporaries = kind == TemporaryFile::UnnamedWhereSupported;
}

size_t kiln::tools::removeStaleTemporaries(const std::string &path) {
  std::string dir = dirOf(path), prefix = baseOf(path) + ".tmp.";
  DIR *d = ::opendir(dir.empty() ? "." : dir.c_str());
  if (!d)
    return 0;
  size_t removed = 0;
  while (struct dirent *e = ::readdir(d)) {
    std::string name = e->d_name;
    if (name.compare(0, prefix.size(), prefix) != 0)
      continue;
    // PID.N, both decimal.
    std::string rest = name.substr(prefix.size());
    size_t dot = rest.find('.');
    if (dot == 0 || dot == std::string::npos || dot + 1 == rest.size() ||
        rest.find_first_not_of("0123456789.") != std::string::npos ||
        rest.find('.', dot + 1) != std::string::npos || dot > 9)
      continue;
    pid_t pid = pid_t(std::atol(rest.substr(0, dot).c_str()));
    // EPERM: alive, someone else's. Only a process that is gone is swept.
    if (pid <= 0 || ::kill(pid, 0) == 0 || errno != ESRCH)
      continue;
    if (::unlinkat(::dirfd(d), name.c_str(), 0) == 0)
      ++removed;
  }
  ::closedir(d);
  return removed;
}

Status kiln::tools::checkOutputPath(const std::string &path,
                                    const std::vector<ProtectedInput> &inputs) {
  Target target;
  return resolve(path, inputs, target);
}

Status kiln::tools::writeOutputFile(const std::string &path,
                                    const std::vector<ByteSpan> &pieces,
                                    const std::vector<ProtectedInput> &inputs) {
  Target target;
  if (Status s = resolve(path, inputs, target); !s)
    return s;
  const std::string dir = dirOf(target.path);
  removeStaleTemporaries(target.path);
  const char *step = "";
  auto failed = [&](const std::string &what, int err) {
    return cannotWrite(path, what + ": " + std::strerror(err));
  };

  if (gUnnamedTemporaries) {
    int fd = ::open(dir.empty() ? "." : dir.c_str(),
                    O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
    if (fd < 0 && errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL)
      return failed(
          "cannot create a file in '" + (dir.empty() ? "." : dir) + "'", errno);
    if (fd >= 0) {
      if (!fill(fd, pieces, target, step)) {
        int err = errno;
        ::close(fd); // the unnamed file goes with it
        return failed(step, err);
      }
      std::string name = temporaryName(target.path);
      if (linkUnnamed(fd, name)) {
        ::close(fd);
        if (::rename(name.c_str(), target.path.c_str()) != 0) {
          int err = errno;
          ::unlink(name.c_str());
          return failed("rename failed", err);
        }
        syncDirectory(dir);
        return Status::success();
      }
      ::close(fd); // cannot be linked here: write it again, named
    }
  }

  // The signals that remove the temporary wait until it has been created
  // and handed to the handler: no window in which one leaves it behind.
  sigset_t signals, previous;
  sigemptyset(&signals);
  for (int sig : kSignals)
    sigaddset(&signals, sig);
  ::sigprocmask(SIG_BLOCK, &signals, &previous);
  std::string name;
  int fd = -1, err = EEXIST;
  for (int attempt = 0; attempt < 100 && fd < 0 && err == EEXIST; ++attempt) {
    name = temporaryName(target.path);
    fd = ::open(name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    err = fd < 0 ? errno : 0;
  }
  NamedTemporary guard;
  if (fd >= 0)
    guard.adopt(name);
  ::sigprocmask(SIG_SETMASK, &previous, nullptr);
  if (fd < 0)
    return failed("cannot create the temporary file '" + name + "'", err);
  if (!fill(fd, pieces, target, step)) {
    int err = errno;
    ::close(fd);
    return failed(step, err);
  }
  if (::close(fd) != 0)
    return failed("close failed", errno);
  if (::rename(name.c_str(), target.path.c_str()) != 0)
    return failed("rename failed", errno);
  guard.release(/*remove=*/false);
  syncDirectory(dir);
  return Status::success();
}

Status kiln::tools::writeOutputFile(const std::string &path,
                                    std::string_view bytes,
                                    const std::vector<ProtectedInput> &inputs) {
  return writeOutputFile(
      path,
      {ByteSpan{reinterpret_cast<const uint8_t *>(bytes.data()), bytes.size()}},
      inputs);
}

Status kiln::tools::writePlanFile(const plan::PlanWriter &writer,
                                  const std::string &path,
                                  const std::vector<ProtectedInput> &inputs) {
  // Checked first: serializing a large plan is not free.
  if (Status s = checkOutputPath(path, inputs); !s)
    return s;
  std::vector<uint8_t> bytes;
  if (Status s = writer.serialize(bytes); !s)
    return s;
  return writeOutputFile(path, {ByteSpan{bytes.data(), bytes.size()}}, inputs);
}
