//===- Status.h - Error status shared by the plan library and the runtime -===//
//
// The plan library and the runtime report errors as values, never by
// throwing or aborting: every fallible call returns a Status whose message is
// written for the person who runs the tool (lowercase, expected vs actual).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_PLAN_STATUS_H
#define KILN_PLAN_STATUS_H

#include <string>
#include <utility>

namespace kiln::plan {

/// Error categories. The numbering matches `kiln_status` in kiln_runtime.h.
enum class StatusCode : int {
  Ok = 0,
  InvalidArgument =
      1,           ///< the caller passed something wrong (name, size, pointer)
  NotFound = 2,    ///< a named input/output/file does not exist
  IOError = 3,     ///< reading or writing a file failed
  InvalidPlan = 4, ///< the plan is truncated, corrupt or inconsistent
  UnsupportedVersion = 5, ///< the plan format is newer/older than this runtime
  UnsupportedTarget = 6,  ///< no module for a target this runtime can run
  NotImplemented = 7,     ///< a feature this runtime does not have yet
  OutOfMemory = 8,
  Internal = 9, ///< a bug in kiln (or a failing system call)
};

/// Returns a stable lowercase name for `code` ("invalid plan").
const char *statusCodeName(StatusCode code);

/// Success, or an error code with a message.
class [[nodiscard]] Status {
public:
  Status() = default;
  Status(StatusCode code, std::string message)
      : code_(code), message_(std::move(message)) {}

  static Status success() { return Status(); }

  bool ok() const { return code_ == StatusCode::Ok; }
  explicit operator bool() const { return ok(); }
  StatusCode code() const { return code_; }
  const std::string &message() const { return message_; }

  /// Prefixes the message with `context + ": "`; a no-op on success.
  Status &withContext(const std::string &context) {
    if (!ok())
      message_ = context + ": " + message_;
    return *this;
  }

private:
  StatusCode code_ = StatusCode::Ok;
  std::string message_;
};

} // namespace kiln::plan

#endif // KILN_PLAN_STATUS_H
