//===- InputFile.h - Reading the tools' input files without surprises -----===//
//
// A path given as a tool's input (plan, model, tensor, timing cache) must be
// a regular file: a FIFO would make open() wait for a writer forever, a
// device could be read without end. These refuse anything else before
// reading, with the kind of file in the message.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TOOLS_COMMON_INPUTFILE_H
#define KILN_TOOLS_COMMON_INPUTFILE_H

#include "kiln/Plan/Status.h"

#include <cstdint>
#include <string>
#include <vector>

namespace kiln::tools {

/// Checks that `path` is (a link to) a regular file, without opening it.
/// NotFound when it does not exist; InvalidArgument for other kinds of files.
plan::Status checkInputFile(const std::string &path);

/// Reads the whole regular file `path` (checkInputFile's refusals, without
/// waiting on a FIFO; files larger than the machine's memory refused).
plan::Status readInputFile(const std::string &path, std::vector<uint8_t> &out);

} // namespace kiln::tools

#endif // KILN_TOOLS_COMMON_INPUTFILE_H
