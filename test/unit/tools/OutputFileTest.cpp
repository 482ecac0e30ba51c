//===- OutputFileTest.cpp - writeOutputFile's rule, case by case ----------===//

#include "tools/common/OutputFile.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace kiln::tools;
using kiln::plan::ByteSpan;
using kiln::plan::Status;
namespace fs = std::filesystem;

namespace {

struct TempDir {
  fs::path path;
  TempDir() {
    std::string t =
        (fs::temp_directory_path() / "kiln-output-test-XXXXXX").string();
    std::vector<char> buf(t.begin(), t.end());
    buf.push_back(0);
    path = ::mkdtemp(buf.data());
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  std::string file(const std::string &name) const {
    return (path / name).string();
  }
  std::vector<std::string> entries() const {
    std::vector<std::string> out;
    for (const auto &e : fs::directory_iterator(path))
      out.push_back(e.path().filename().string());
    std::sort(out.begin(), out.end());
    return out;
  }
};

std::string slurp(const std::string &p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void spit(const std::string &p, const std::string &text) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out << text;
}

bool contains(const std::string &s, const std::string &part) {
  return s.find(part) != std::string::npos;
}

/// Restores the default temporary kind after a test that changed it.
struct NamedTemporaries {
  NamedTemporaries() { setTemporaryFileForTesting(TemporaryFile::Named); }
  ~NamedTemporaries() {
    setTemporaryFileForTesting(TemporaryFile::UnnamedWhereSupported);
  }
};

/// A PID that no process has: a child that has exited and been reaped.
pid_t deadPid() {
  pid_t pid = ::fork();
  if (pid == 0)
    ::_exit(0);
  ::waitpid(pid, nullptr, 0);
  return pid;
}

/// Whether process `pid` has a file open whose path starts with `prefix`
/// (an O_TMPFILE file shows as "DIR/#INODE (deleted)").
bool hasFileOpenIn(pid_t pid, const std::string &prefix) {
  std::error_code ec;
  for (const auto &e :
       fs::directory_iterator("/proc/" + std::to_string(pid) + "/fd", ec)) {
    std::error_code ec2;
    fs::path target = fs::read_symlink(e.path(), ec2);
    if (!ec2 && target.string().rfind(prefix, 0) == 0)
      return true;
  }
  return false;
}

/// Forks a child that writes `bytes` big bytes to `path` (taking `kind` of
/// temporary), waits until it writes into `dir`, and sends it `sig`.
/// Returns the child's wait status.
int killWhileWriting(const std::string &path, const std::string &dir,
                     TemporaryFile kind, int sig) {
  pid_t pid = ::fork();
  if (pid == 0) {
    setTemporaryFileForTesting(kind);
    std::string big(size_t(512) << 20, 'x');
    Status s = writeOutputFile(path, big);
    ::_exit(s.ok() ? 0 : 3);
  }
  auto start = std::chrono::steady_clock::now();
  // Inside `dir`: not the directory itself, which the stale sweep opens.
  while (!hasFileOpenIn(pid, dir + "/") &&
         std::chrono::steady_clock::now() - start < std::chrono::seconds(20))
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  ::kill(pid, sig);
  int status = 0;
  ::waitpid(pid, &status, 0);
  return status;
}

} // namespace

TEST(OutputFile, WritesNewFilesAndReplacesRegularFiles) {
  TempDir dir;
  std::string path = dir.file("out.plan");
  ASSERT_TRUE(writeOutputFile(path, "first").ok());
  EXPECT_EQ(slurp(path), "first");
  ::chmod(path.c_str(), 0640);
  const uint8_t *ab = reinterpret_cast<const uint8_t *>("abcd");
  std::vector<ByteSpan> pieces = {ByteSpan{ab, 2}, ByteSpan{ab + 2, 2}};
  Status s = writeOutputFile(path, pieces);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(slurp(path), "abcd");
  struct stat st;
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0640u) << "a replaced file keeps its mode";
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"out.plan"});

  NamedTemporaries named;
  ASSERT_TRUE(writeOutputFile(path, "named").ok());
  EXPECT_EQ(slurp(path), "named");
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"out.plan"});

  // A missing directory is an error that names the path, found by the
  // check too (before any work).
  s = checkOutputPath(dir.file("none/out.plan"));
  EXPECT_EQ(s.code(), kiln::plan::StatusCode::IOError);
  EXPECT_EQ(s.message(), "cannot write '" + dir.file("none/out.plan") +
                             "': its directory '" + dir.file("none/") +
                             "' cannot be used: No such file or directory");
  EXPECT_FALSE(writeOutputFile(dir.file("none/out.plan"), "x").ok());
  EXPECT_EQ(checkOutputPath(dir.file("out.plan/x")).message(),
            "cannot write '" + dir.file("out.plan/x") + "': Not a directory");
}

TEST(OutputFile, RefusesDevicesFifosSocketsAndDirectories) {
  TempDir dir;
  auto expectRefused = [&](const std::string &path, const std::string &kind) {
    Status s = checkOutputPath(path);
    EXPECT_EQ(s.code(), kiln::plan::StatusCode::InvalidArgument) << path;
    EXPECT_EQ(s.message(), "cannot write '" + path + "': it is " + kind +
                               "; outputs are written only to regular files "
                               "or new paths");
    s = writeOutputFile(path, "data");
    EXPECT_EQ(s.code(), kiln::plan::StatusCode::InvalidArgument) << path;
  };
  // A device node of our own where we may make one (root), so that a
  // regression replaces that and not the system's.
  std::string device = dir.file("full");
  if (::mknod(device.c_str(), S_IFCHR | 0666, makedev(1, 7)) != 0)
    device = "/dev/full";
  expectRefused(device, "a character device");
  struct stat st;
  ASSERT_EQ(::lstat(device.c_str(), &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode)) << "the device node is still there";

  std::string fifo = dir.file("fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0666), 0);
  expectRefused(fifo, "a FIFO"); // and returns: no open() waits for a reader
  ASSERT_EQ(::lstat(fifo.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));

  std::string socketPath = dir.file("sock");
  int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, socketPath.c_str(), sizeof(addr.sun_path) - 1);
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr *>(&addr), sizeof(addr)), 0);
  expectRefused(socketPath, "a socket");
  ::close(fd);

  fs::create_directory(dir.file("sub"));
  expectRefused(dir.file("sub"), "a directory");
  expectRefused(dir.file("sub") + "/", "a directory");
  EXPECT_EQ(checkOutputPath("").message(),
            "cannot write '': no file name given");
}

TEST(OutputFile, WritesThroughSymbolicLinks) {
  TempDir dir;
  fs::create_directory(dir.file("plans"));
  std::string target = dir.file("plans/v1.plan");
  spit(target, "old");
  std::string link = dir.file("latest.plan");
  fs::create_symlink("plans/v1.plan", link);
  ASSERT_TRUE(writeOutputFile(link, "new").ok());
  EXPECT_TRUE(fs::is_symlink(link)) << "the link stays a link";
  EXPECT_EQ(fs::read_symlink(link), "plans/v1.plan");
  EXPECT_EQ(slurp(target), "new");
  EXPECT_EQ(dir.entries(), (std::vector<std::string>{"latest.plan", "plans"}));

  // A chain of links ends at the file.
  std::string chain = dir.file("chain");
  fs::create_symlink("latest.plan", chain);
  ASSERT_TRUE(writeOutputFile(chain, "newer").ok());
  EXPECT_EQ(slurp(target), "newer");

  // Dangling: refused, nothing created.
  std::string dangling = dir.file("dangling");
  fs::create_symlink("nowhere/x.plan", dangling);
  Status s = writeOutputFile(dangling, "x");
  EXPECT_EQ(s.code(), kiln::plan::StatusCode::InvalidArgument);
  EXPECT_EQ(s.message(), "cannot write '" + dangling +
                             "': it is a symbolic link to 'nowhere/x.plan', "
                             "which does not exist; give the path to write, "
                             "or remove the link");
  EXPECT_FALSE(fs::exists(dir.file("nowhere")));
  // A link to a device is the device.
  std::string toDevice = dir.file("to-full");
  fs::create_symlink("/dev/full", toDevice);
  s = checkOutputPath(toDevice);
  EXPECT_PRED2(contains, s.message(), "it is a character device");
  EXPECT_TRUE(fs::is_symlink(toDevice));
}

TEST(OutputFile, RefusesToOverwriteAnInput) {
  TempDir dir;
  std::string model = dir.file("m.onnx");
  spit(model, "model");
  std::vector<ProtectedInput> inputs = {{dir.file("other.plan"), "plan"},
                                        {model, "input model"}};
  Status s = writeOutputFile(model, "plan", inputs);
  EXPECT_EQ(s.code(), kiln::plan::StatusCode::InvalidArgument);
  EXPECT_EQ(s.message(), "cannot write '" + model +
                             "': it would overwrite the input model '" + model +
                             "'; give another output path");
  EXPECT_EQ(slurp(model), "model");
  // Through another spelling, a symbolic link or a hard link.
  std::string dotted = dir.path.string() + "/./m.onnx";
  EXPECT_PRED2(contains, checkOutputPath(dotted, inputs).message(),
               "would overwrite the input model '" + model +
                   "' (the same file)");
  fs::create_symlink("m.onnx", dir.file("link.onnx"));
  EXPECT_FALSE(checkOutputPath(dir.file("link.onnx"), inputs).ok());
  fs::create_hard_link(model, dir.file("hard.onnx"));
  EXPECT_FALSE(checkOutputPath(dir.file("hard.onnx"), inputs).ok());
  EXPECT_EQ(slurp(model), "model");
  // Other files are fine, and inputs that do not exist protect nothing.
  EXPECT_TRUE(writeOutputFile(dir.file("m.plan"), "plan", inputs).ok());
}

TEST(OutputFile, KilledWhileWritingLeavesNoPartialFile) {
  TempDir dir;
  std::string path = dir.file("out.plan");
  spit(path, "old");
  int status = killWhileWriting(path, dir.path.string(),
                                TemporaryFile::UnnamedWhereSupported, SIGKILL);
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
      << "the writer finished before the kill; status " << status;
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"out.plan"})
      << "no temporary is visible";
  EXPECT_EQ(slurp(path), "old");
}

TEST(OutputFile, NamedTemporariesAreRemovedOnSignalsAndSweptAfterSIGKILL) {
  TempDir dir;
  std::string path = dir.file("out.plan");
  spit(path, "old");
  // SIGTERM: the handler removes the temporary, then the process dies of
  // the signal as it would have.
  int status =
      killWhileWriting(path, dir.path.string(), TemporaryFile::Named, SIGTERM);
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM) << status;
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"out.plan"});
  EXPECT_EQ(slurp(path), "old");

  // SIGKILL cannot be caught: the partial temporary stays until the next
  // write into the directory sweeps it (its process is gone).
  status =
      killWhileWriting(path, dir.path.string(), TemporaryFile::Named, SIGKILL);
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << status;
  EXPECT_EQ(dir.entries().size(), 2u);
  EXPECT_EQ(slurp(path), "old");
  ASSERT_TRUE(writeOutputFile(path, "new").ok());
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"out.plan"});
  EXPECT_EQ(slurp(path), "new");
}

TEST(OutputFile, SweepsOnlyTemporariesOfProcessesThatAreGone) {
  TempDir dir;
  std::string path = dir.file("out.plan");
  std::string dead = std::to_string(deadPid());
  std::string alive = std::to_string(::getpid());
  for (const std::string &name : std::vector<std::string>{
           "out.plan.tmp." + dead + ".0", "out.plan.tmp." + dead + ".17",
           "out.plan.tmp." + alive + ".1", "out.plan.tmp.x.1",
           "out.plan.tmp." + dead, "out.plan.tmp." + dead + ".1.2",
           "other.plan.tmp." + dead + ".0"})
    spit(dir.file(name), "partial");
  EXPECT_EQ(removeStaleTemporaries(path), 2u);
  std::vector<std::string> left = {
      "other.plan.tmp." + dead + ".0", "out.plan.tmp." + alive + ".1",
      "out.plan.tmp." + dead, "out.plan.tmp." + dead + ".1.2",
      "out.plan.tmp.x.1"};
  std::sort(left.begin(), left.end());
  EXPECT_EQ(dir.entries(), left);
  // writeOutputFile sweeps too.
  spit(dir.file("out.plan.tmp." + dead + ".3"), "partial");
  ASSERT_TRUE(writeOutputFile(path, "x").ok());
  left.push_back("out.plan");
  std::sort(left.begin(), left.end());
  EXPECT_EQ(dir.entries(), left);
}
