// The exit codes of every `ream` command, in one table (documented in the README's "Exit
// codes" section), and the one mapping from a Status to them.
#pragma once

#include "platform/status.h"

namespace ream::cli {

// 0: the command did what was asked (for `ream run`: every point measured, or its failure
//    stored with the reason; a failed point is a result).
inline constexpr int kExitDone = 0;
// 1: it could not run: the machine, a server or a file failed it (connection refused, a
//    kernel write rejected, a database that cannot be opened).
inline constexpr int kExitCouldNotRun = 1;
// 2: bad input: a flag, spec, value, path or name is wrong, or asks for what this machine
//    cannot do. Nothing was run.
inline constexpr int kExitBadInput = 2;
// 3: the measurement ran but requests failed during it (`ream load`: errors > 0).
inline constexpr int kExitMeasuredWithFailures = 3;
// 70 (EX_SOFTWARE): an internal error escaped as an exception.
inline constexpr int kExitInternal = 70;
// 128 + N: stopped by signal N (130 for SIGINT); what was measured so far is kept.
inline constexpr int kExitSignalBase = 128;
inline constexpr int kExitInterrupted = kExitSignalBase + 2;

// kExitBadInput for the user's mistakes (invalid argument, not found, already exists,
// unsupported), kExitInterrupted for cancelled, kExitCouldNotRun for every other failure,
// kExitDone for ok.
inline int ExitCodeFor(const Status& s) {
  switch (s.code()) {
    case StatusCode::kOk:
      return kExitDone;
    case StatusCode::kInvalidArgument:
    case StatusCode::kNotFound:
    case StatusCode::kAlreadyExists:
    case StatusCode::kUnsupported:
      return kExitBadInput;
    case StatusCode::kCancelled:
      return kExitInterrupted;
    default:
      return kExitCouldNotRun;
  }
}

}  // namespace ream::cli
