//===- OutputFile.h - Writing the tools' output files, only where safe ----===//
//
// Every file kiln's tools write (plans, tensors, reports, timing caches)
// goes through writeOutputFile, whose rule is:
//
//  - A new path, or an existing regular file, is replaced atomically: the
//    bytes go into a temporary file in the same directory, are fsynced, and
//    the temporary is renamed over the path (then the directory is fsynced).
//    Readers see the old file or the new one, never a part. The temporary
//    has no name while it is written where the filesystem allows (O_TMPFILE,
//    linked in as PATH.tmp.PID.N just before the rename), so a tool killed
//    while writing leaves nothing; elsewhere it is PATH.tmp.PID.N from the
//    start, removed on every exit path the tool controls (errors, SIGINT,
//    SIGTERM, SIGHUP). Files of that name whose process no longer exists
//    (a SIGKILL) are removed by the next write into the directory. A
//    replaced file keeps its permission bits; hard links to it keep the old
//    contents (as with any atomic replacement).
//  - A symbolic link is written through: its final target is replaced as
//    above and the link stays. A link whose target does not exist is
//    refused (as GNU cp does): it may point anywhere.
//  - FIFOs, character and block devices, sockets and directories are refused
//    and nothing is written: a rename would replace the node itself (a
//    device node by a regular file), and writing into it is not atomic.
//    /dev/null included: a tool's output is a file.
//  - A path that is the same file (device and inode, through links) as one
//    of the tool's inputs is refused: "would overwrite the input model
//    'm.onnx'".
//
// Plain C++17 on the plan library's Status, usable from kilnc too.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TOOLS_COMMON_OUTPUTFILE_H
#define KILN_TOOLS_COMMON_OUTPUTFILE_H

#include "kiln/Plan/PlanIO.h"
#include "kiln/Plan/Status.h"

#include <string>
#include <string_view>
#include <vector>

namespace kiln::tools {

/// A file the tool reads, which its outputs may not replace. `what` names it
/// in the message: "input model" -> "would overwrite the input model 'm'".
struct ProtectedInput {
  std::string path;
  std::string what;
};

/// Checks `path` against the rule above without writing anything, so that a
/// tool can refuse it before long work. InvalidArgument for a path the rule
/// refuses, IOError when it cannot be examined.
plan::Status checkOutputPath(const std::string &path,
                             const std::vector<ProtectedInput> &inputs = {});

/// Writes `pieces`, in order, to `path` by the rule above. Errors name the
/// path; on any error an existing file at `path` is untouched.
plan::Status writeOutputFile(const std::string &path,
                             const std::vector<plan::ByteSpan> &pieces,
                             const std::vector<ProtectedInput> &inputs = {});
plan::Status writeOutputFile(const std::string &path, std::string_view bytes,
                             const std::vector<ProtectedInput> &inputs = {});

/// A plan (writer.serialize()) written by writeOutputFile's rule.
plan::Status writePlanFile(const plan::PlanWriter &writer,
                           const std::string &path,
                           const std::vector<ProtectedInput> &inputs = {});

/// How writeOutputFile keeps its temporary file; tests take the named one to
/// check it on filesystems that have O_TMPFILE.
enum class TemporaryFile { UnnamedWhereSupported, Named };
void setTemporaryFileForTesting(TemporaryFile kind);

/// The files PATH.tmp.PID.N next to `path` whose process PID no longer
/// exists, removed; returns how many. writeOutputFile calls it.
size_t removeStaleTemporaries(const std::string &path);

} // namespace kiln::tools

#endif // KILN_TOOLS_COMMON_OUTPUTFILE_H
