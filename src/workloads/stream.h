// The `stream` workload (the seed's CloudSuite media-streaming): Debian's nginx
// serving generated "video" files of a given bitrate and length over HTTP/1.1, in the
// workload's sandbox (it is `ream serve stream`'s child, so in its cgroup and namespace).
// The videos are generated once into a dataset directory and reused; nginx's configuration
// lives in a temporary directory removed when it stops. Driven by session load
// (load/session_load.h): video v is /video/KeyString(v).bin, chunks are Range requests.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "platform/platform.h"
#include "platform/status.h"
#include "workloads/builtins.h"

namespace ream {

struct StreamOptions {
  uint64_t videos = 8;               // distinct videos (the generator's --keys)
  uint64_t bitrate_bps = 4'000'000;  // each video's bitrate, bits per second
  uint64_t seconds = 20;             // each video's length: bytes = seconds * bitrate / 8
  uint64_t seed = 1;                 // of the videos' bytes
  std::string path;                  // the dataset directory; "" = StreamDefaultPath
  std::string data_dir = "/var/tmp/ream";
  uint64_t max_bytes = 8ull << 30;   // the largest dataset accepted (videos * bytes)
  std::string nginx = "nginx";       // the nginx executable (PATH, /usr/sbin)
  uint64_t video_bytes() const { return seconds * bitrate_bps / 8; }
};

// <data_dir>/stream-<videos>x<bytes>-s<seed>.
std::string StreamDefaultPath(const StreamOptions& o);

// InvalidArgument naming the flag for a bad value (no videos, a zero-length video, a dataset
// over --max-bytes).
Status ValidateStreamOptions(const StreamOptions& o);

// The dataset: o.path/video/key0000000000000.bin ... of o.video_bytes() incompressible bytes
// each, made once (a file "complete" records what was made) and reused after. On a failure
// (a read-only or full file system) everything this call created is removed and the error
// names the path.
Status PrepareStreamDataset(Platform& p, const StreamOptions& o);

// The nginx configuration serving `root` on bind:port with `workers` worker processes, its
// files (pid, logs, temp paths) under `run_dir`. Pure.
std::string StreamNginxConfig(const std::string& run_dir, const std::string& root, const std::string& bind, int port,
                              int workers);

// What `ream serve stream` runs: nginx on the options' port (0: a free one), ready once it
// accepts connections.
Result<std::unique_ptr<ExternalServer>> StartStreamServer(Platform& p, const StreamOptions& o,
                                                          const ServerOptions& server);

}  // namespace ream
