// The stream workload: the videos generated once, nginx started on them and stopped.
#include "workloads/stream.h"

#include <chrono>
#include <cstdio>
#include <random>

#include "platform/net.h"
#include "platform/process.h"
#include "protocol/keyspace.h"
#include "workloads/dataset_dir.h"

namespace ream {
namespace {

using std::chrono::milliseconds;

std::string Marker(const StreamOptions& o) {
  return "videos=" + std::to_string(o.videos) + " bytes=" + std::to_string(o.video_bytes()) +
         " seed=" + std::to_string(o.seed) + "\n";
}

class NginxServer final : public ExternalServer {
 public:
  NginxServer(Platform& p, std::unique_ptr<ChildProcess> child, std::string run_dir, int port)
      : p_(p), child_(std::move(child)), run_dir_(std::move(run_dir)), port_(port) {}
  ~NginxServer() override { (void)Stop(); }
  int port() const override { return port_; }

  std::optional<std::string> Exited() override {
    if (!child_) return std::string("stopped");
    auto e = child_->Poll();
    if (!e) return std::nullopt;
    return "nginx " + e->Describe() + LogTail(p_, run_dir_);
  }

  Status Stop() override {
    Status first;
    if (child_) {
      // SIGTERM: nginx's fast shutdown (workers stop at once, open connections dropped).
      if (!child_->Poll()) {
        (void)child_->Signal(SIGTERM);
        if (!child_->Wait(milliseconds(5000)).ok()) {
          (void)child_->Signal(SIGKILL);
          (void)child_->Wait(milliseconds(2000));
        }
      }
      child_.reset();
    }
    if (!run_dir_.empty()) {
      first = RemoveTree(p_, run_dir_);
      run_dir_.clear();
    }
    return first;
  }

  // The last lines of nginx's error log, for a message.
  static std::string LogTail(Platform& p, const std::string& run_dir) {
    auto log = p.ReadFile(run_dir + "/error.log");
    if (!log.ok() || log->empty()) return "";
    std::string t = *log;
    while (!t.empty() && t.back() == '\n') t.pop_back();
    if (t.size() > 600) t = "..." + t.substr(t.size() - 600);
    return "; its error log: " + t;
  }

 private:
  Platform& p_;
  std::unique_ptr<ChildProcess> child_;
  std::string run_dir_;
  int port_;
};

}  // namespace

std::string StreamDefaultPath(const StreamOptions& o) {
  return o.data_dir + "/stream-" + std::to_string(o.videos) + "x" + std::to_string(o.video_bytes()) + "-s" +
         std::to_string(o.seed);
}

Status ValidateStreamOptions(const StreamOptions& o) {
  if (o.videos < 1) return InvalidArgument("--videos must be >= 1 (a stream workload needs a video to serve)");
  if (o.bitrate_bps < 1) return InvalidArgument("--bitrate must be > 0 (e.g. 4mbit)");
  if (o.seconds < 1) return InvalidArgument("--seconds must be >= 1 (each video's length)");
  if (o.video_bytes() < 1) return InvalidArgument("--seconds * --bitrate / 8 is 0 bytes: the videos would be empty");
  double total = static_cast<double>(o.videos) * static_cast<double>(o.video_bytes());
  if (total > static_cast<double>(o.max_bytes)) {
    char b[256];
    std::snprintf(b, sizeof b,
                  "%llu videos of %llu bytes make %.3g GB, above --max-bytes (%.3g GB): fewer or shorter videos, "
                  "a lower bitrate, or raise --max-bytes",
                  static_cast<unsigned long long>(o.videos), static_cast<unsigned long long>(o.video_bytes()),
                  total / 1e9, static_cast<double>(o.max_bytes) / 1e9);
    return InvalidArgument(b);
  }
  return Status::Ok();
}

Status PrepareStreamDataset(Platform& p, const StreamOptions& o) {
  REAM_RETURN_IF_ERROR(ValidateStreamOptions(o));
  const std::string& dir = o.path;
  auto marker = p.ReadFile(dir + "/complete");
  if (marker.ok() && *marker == Marker(o)) return Status::Ok();  // made before: reused
  std::string created;
  REAM_RETURN_IF_ERROR(MakeDirs(p, dir + "/video", &created));
  auto fail = [&](const Status& s) {
    // Leave nothing behind: what this call created, or the partial videos in a dir it found.
    if (!created.empty()) {
      (void)RemoveTree(p, created);
    } else {
      (void)RemoveTree(p, dir + "/video");
    }
    return Status(s.code(), "stream: cannot write the videos into " + dir + ": " + s.message());
  };
  std::mt19937_64 rng(o.seed * 0x9E3779B97F4A7C15ULL + 3);
  std::string bytes(o.video_bytes(), '\0');
  for (uint64_t v = 0; v < o.videos; ++v) {
    // Incompressible bytes: nothing on the path can make a chunk smaller than its size.
    for (size_t i = 0; i + 8 <= bytes.size(); i += 8) {
      uint64_t x = rng();
      for (int k = 0; k < 8; ++k) bytes[i + k] = static_cast<char>(x >> (8 * k));
    }
    for (size_t i = bytes.size() / 8 * 8; i < bytes.size(); ++i) bytes[i] = static_cast<char>(rng());
    const std::string file = dir + "/video/" + KeyString(v) + ".bin";
    Status s = p.WriteFile(file + ".tmp", bytes);
    if (s.ok()) s = p.RenameFile(file + ".tmp", file);
    if (!s.ok()) return fail(s);
  }
  Status s = p.WriteFile(dir + "/complete", Marker(o));
  if (!s.ok()) return fail(s);
  return Status::Ok();
}

std::string StreamNginxConfig(const std::string& run_dir, const std::string& root, const std::string& bind, int port,
                              int workers) {
  const std::string& r = run_dir;
  return "daemon off;\n"
         "master_process on;\n"
         "worker_processes " + std::to_string(workers) + ";\n"
         "pid " + r + "/nginx.pid;\n"
         "error_log " + r + "/error.log;\n"
         "events { worker_connections 4096; }\n"
         "http {\n"
         "  access_log off;\n"
         "  default_type application/octet-stream;\n"
         // The kernel copies the file to the socket: nginx's CPU per byte is what a media
         // server's is.
         "  sendfile on;\n"
         "  tcp_nopush on;\n"
         // A session keeps its connection for the whole run (keep-alive's default would close
         // it after 1000 requests or 75 s idle).
         "  keepalive_requests 10000000;\n"
         "  keepalive_timeout 600s;\n"
         "  client_body_temp_path " + r + "/body;\n"
         "  proxy_temp_path " + r + "/proxy;\n"
         "  fastcgi_temp_path " + r + "/fastcgi;\n"
         "  uwsgi_temp_path " + r + "/uwsgi;\n"
         "  scgi_temp_path " + r + "/scgi;\n"
         "  server {\n"
         "    listen " + bind + ":" + std::to_string(port) + ";\n"
         "    root " + root + ";\n"
         "    location /video/ { }\n"
         "  }\n"
         "}\n";
}

Result<std::unique_ptr<ExternalServer>> StartStreamServer(Platform& p, const StreamOptions& o,
                                                          const ServerOptions& server) {
  int port = server.port;
  if (port == 0) {
    // A free port: bind port 0, read it back, release it for nginx (which cannot report one).
    REAM_ASSIGN_OR_RETURN(net::Fd fd, net::Listen(server.bind, 0));
    REAM_ASSIGN_OR_RETURN(port, net::LocalPort(fd.get()));
  }
  REAM_ASSIGN_OR_RETURN(std::string nginx, p.FindExecutable(o.nginx));
  const std::string run_dir = TempBase() + "/ream-stream." + std::to_string(p.ProcessId());
  (void)RemoveTree(p, run_dir);  // a previous run of this pid that was killed
  REAM_RETURN_IF_ERROR(p.MakeDir(run_dir).Annotate("stream: creating nginx's run directory"));
  Status w = p.WriteFile(run_dir + "/nginx.conf",
                         StreamNginxConfig(run_dir, o.path, server.bind, port, std::max(server.threads, 1)));
  if (!w.ok()) {
    (void)RemoveTree(p, run_dir);
    return w;
  }
  SpawnOptions so;
  so.argv = {nginx, "-p", run_dir, "-c", run_dir + "/nginx.conf", "-e", run_dir + "/error.log"};
  so.kill_with_parent = true;
  auto child = p.Spawn(so);
  if (!child.ok()) {
    (void)RemoveTree(p, run_dir);
    return child.status();
  }
  auto srv = std::make_unique<NginxServer>(p, std::move(child).value(), run_dir, port);
  const std::string probe = server.bind == "0.0.0.0" ? "127.0.0.1" : server.bind;
  const int64_t deadline = p.MonotonicNanos() + 10'000'000'000;
  while (true) {
    if (auto e = srv->Exited()) {
      std::string why = *e;
      (void)srv->Stop();
      return Unavailable("stream: " + why);
    }
    if (net::Connect(probe, port, 100'000'000).ok()) break;
    if (p.MonotonicNanos() > deadline) {
      std::string why = NginxServer::LogTail(p, run_dir);
      (void)srv->Stop();
      return Timeout("stream: nginx accepted no connection on " + probe + ":" + std::to_string(port) +
                     " within 10 s" + why);
    }
    p.SleepFor(milliseconds(20));
  }
  return std::unique_ptr<ExternalServer>(std::move(srv));
}

}  // namespace ream
