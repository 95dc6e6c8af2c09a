// SIGINT/SIGTERM/SIGHUP as a flag the command's wait loop polls, so an interrupted ream
// stops its sandboxes in order and removes every kernel object it created instead of dying
// with them left behind.
#pragma once

namespace ream {

class TerminationSignals {
 public:
  // Installs the handlers (idempotent). Until Restore(), these signals no longer kill ream.
  static void Install();
  // Puts the default actions back.
  static void Restore();
  // 0, or the number of the first termination signal received since Install().
  static int Received();
};

}  // namespace ream
