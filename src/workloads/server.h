// The runtime of ream's built-in servers: an acceptor thread hands connections round-robin to
// N worker threads, each an epoll loop that reads requests into a FIFO (stamping their arrival),
// serves them in order through a RequestHandler and writes responses carrying the measured
// service time (dequeue → response written) and queue time (arrival → dequeue).
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "platform/status.h"
#include "protocol/ream_frame.h"

namespace ream {

struct ServerOptions {
  std::string bind = "127.0.0.1";  // address to listen on (0.0.0.0 inside a network namespace)
  int port = 0;                    // 0: the kernel picks a free port (see Server::port())
  int threads = 1;                 // worker threads, >= 1
};

// Serves requests on one worker thread (each worker owns its own handler).
class RequestHandler {
 public:
  virtual ~RequestHandler() = default;
  // Serves one request: appends the response payload to *payload (empty on entry) and returns
  // the response status (kError with the message as payload for a request it rejects).
  virtual frame::ResponseStatus Handle(const frame::RequestFrame& request,
                                       std::string* payload) = 0;
};
using HandlerFactory = std::function<std::unique_ptr<RequestHandler>(int worker_index)>;

class Server {
 public:
  // Binds, starts the acceptor and the workers. InvalidArgument for bad options; the bind
  // error (address in use, ...) otherwise.
  static Result<std::unique_ptr<Server>> Start(const ServerOptions& options,
                                               HandlerFactory factory);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  int port() const { return port_; }
  // Requests served so far, over all workers.
  uint64_t served() const;
  // Stops accepting, closes every connection and joins the threads. Idempotent.
  void Stop();

  struct Worker;  // defined in server.cc

 private:
  Server() = default;
  void AcceptLoop();

  int port_ = 0;
  std::atomic<bool> stopping_{false};
  std::vector<std::unique_ptr<Worker>> workers_;
  std::thread acceptor_;
  struct AcceptorState;
  std::unique_ptr<AcceptorState> acceptor_state_;
};

// Runs `server` until SIGINT or SIGTERM (which the caller must have blocked with
// net::BlockTerminationSignals before starting it, passing the signalfd), then stops it.
Status ServeUntilSignalled(Server& server, int signal_fd);

}  // namespace ream
