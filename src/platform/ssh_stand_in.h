// Test helper: stand-ins for ssh and scp that reach "another host" by running here, for the
// tests of the remote load driver and of the remote sandbox kind (no sshd needed;
// src/cli/nodes_integration_test.cc has the real one).
//   ssh [options] HOST COMMAND   runs COMMAND with sh, unless `host_cases` (sh `case` arms
//                                over "$host:$cmd") say otherwise for a HOST;
//   scp [options] SRC HOST:DST   copies SRC to DST.
// Both are written to `dir` (dir/ssh, dir/scp), executable by their owner.
#pragma once

#include <filesystem>
#include <fstream>
#include <string>

namespace ream::testing_support {

inline void WriteSshStandIns(const std::string& dir, const std::string& host_cases) {
  std::ofstream(dir + "/ssh") << "#!/bin/sh\n"
                                 "eval \"host=\\${$(($# - 1))}\"; eval \"cmd=\\${$#}\"\n"
                                 "case \"$host:$cmd\" in\n"
                              << host_cases
                              << "esac\n"
                                 "exec sh -c \"$cmd\"\n";
  std::ofstream(dir + "/scp") << "#!/bin/sh\neval \"dst=\\${$#}\"; eval \"src=\\${$(($# - 1))}\"\n"
                                 "exec cp \"$src\" \"${dst#*:}\"\n";
  std::filesystem::permissions(dir + "/ssh", std::filesystem::perms::owner_all);
  std::filesystem::permissions(dir + "/scp", std::filesystem::perms::owner_all);
}

}  // namespace ream::testing_support
