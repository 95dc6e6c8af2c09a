// Server runtime: acceptor + epoll workers with an explicit request FIFO per worker.
#include "workloads/server.h"

#include <cstring>
#include <mutex>

#include "platform/clock.h"
#include "platform/executable.h"
#include "platform/net.h"
#include "platform/poller.h"

namespace ream {
namespace {

// A response may wait in the connection's buffer at most about this long, so that fast
// requests share one send. The wait is checked between requests, so what decides is the wait
// so far plus the expected length of the next service (a running mean): with services of
// ~100 us every response goes out at once, rather than after the next request's service —
// which would add a service time to every response that leaves a queue behind it.
constexpr int64_t kFlushAfterNs = 2000;
// While the FIFO is non-empty, look for newly arrived requests at least this often, so their
// arrival stamp (and thus the reported queue time) is not late by a long service time.
constexpr int64_t kRepollEveryNs = 20000;

}  // namespace

// The worker's connection and FIFO types: named, not anonymous, because Server::Worker (a
// member of a class with linkage) holds them, which an anonymous type must not be in a unity
// build (-Wsubobject-linkage).
namespace server_detail {

struct Conn {
  net::Fd fd;
  net::Buffer in;
  std::string out;
  size_t out_off = 0;
  bool want_write = false;  // registered for EPOLLOUT
  bool dirty = false;       // has unflushed output and is on the dirty list
  bool dead = false;
  int pending = 0;  // requests of this connection still in the worker's FIFO
};

struct Pending {
  Conn* conn = nullptr;
  uint64_t id = 0;
  Op op = Op::kGet;
  uint32_t arg = 0;
  std::string key;
  std::string value;
  int64_t arrival_ns = 0;
};

// A FIFO of Pending that reuses its slots' string capacity.
class PendingQueue {
 public:
  bool empty() const { return size_ == 0; }
  Pending& PushSlot() {
    if (size_ == slots_.size()) Grow();
    Pending& p = slots_[(head_ + size_) & (slots_.size() - 1)];
    ++size_;
    return p;
  }
  Pending& front() { return slots_[head_]; }
  void Pop() {
    head_ = (head_ + 1) & (slots_.size() - 1);
    --size_;
  }

 private:
  void Grow() {
    std::vector<Pending> bigger(slots_.empty() ? 256 : slots_.size() * 2);
    for (size_t i = 0; i < size_; ++i) bigger[i] = std::move(slots_[(head_ + i) & (slots_.size() - 1)]);
    slots_ = std::move(bigger);
    head_ = 0;
  }
  std::vector<Pending> slots_;
  size_t head_ = 0;
  size_t size_ = 0;
};

}  // namespace server_detail

namespace {

// The LogGP overhead o (net_overhead), spent by libream-overhead.so when the sandbox preloaded
// it. ream's servers know their message boundaries, so they take over its counting ("frames"
// mode): one message per request frame received and one per response frame sent, k = 2 per
// operation exactly, however the frames fall into read and send calls (a read that gets 30
// pipelined requests is 30 messages, not 1). The spin and its statistics stay the library's,
// so the accounting is the one a foreign workload gets. nullptr: o is not applied.
using ChargeFn = void (*)();
ChargeFn TakeOverMessageOverhead() {
  auto take = reinterpret_cast<int64_t (*)()>(FindLoadedSymbol("ream_overhead_take_over"));
  auto charge = reinterpret_cast<ChargeFn>(FindLoadedSymbol("ream_overhead_charge"));
  if (take == nullptr || charge == nullptr) return nullptr;
  return take() > 0 ? charge : nullptr;
}

}  // namespace

struct Server::Worker {
  using Conn = server_detail::Conn;
  using Pending = server_detail::Pending;
  using PendingQueue = server_detail::PendingQueue;

  int index = 0;
  std::unique_ptr<RequestHandler> handler;
  net::Poller poller;
  net::Notifier notifier;
  std::mutex inbox_mu;
  std::vector<int> inbox;  // accepted fds waiting to be adopted
  std::atomic<bool>* stopping = nullptr;
  std::atomic<uint64_t> served{0};
  std::thread thread;

  std::vector<Conn*> conns;
  std::vector<Conn*> dirty;
  std::vector<Conn*> graveyard;  // closed, freed once no FIFO entry points at them
  PendingQueue queue;
  std::string payload;
  int64_t first_unflushed_ns = 0;
  int64_t mean_service_ns = 0;  // exponentially weighted (1/8), of handler + response framing
  void (*charge_message)() = nullptr;  // the overhead o per message, when applied

  void Run();
  void Adopt();
  void ReadFrom(Conn* c);
  void Flush(Conn* c);
  void FlushAll();
  void Close(Conn* c);
  void ServeFront();
  void Reap();
};

void Server::Worker::Adopt() {
  std::vector<int> fds;
  {
    std::lock_guard<std::mutex> lock(inbox_mu);
    fds.swap(inbox);
  }
  for (int fd : fds) {
    auto* c = new Conn();
    c->fd.reset(fd);
    if (!poller.Add(fd, EPOLLIN | EPOLLRDHUP, reinterpret_cast<uint64_t>(c)).ok()) {
      delete c;
      continue;
    }
    conns.push_back(c);
  }
}

void Server::Worker::Close(Conn* c) {
  if (c->dead) return;
  c->dead = true;
  poller.Remove(c->fd.get());
  c->fd.reset();
  graveyard.push_back(c);
}

void Server::Worker::Reap() {
  for (size_t i = 0; i < graveyard.size();) {
    Conn* c = graveyard[i];
    if (c->pending == 0 && !c->dirty) {
      std::erase(conns, c);
      delete c;
      graveyard[i] = graveyard.back();
      graveyard.pop_back();
    } else {
      ++i;
    }
  }
}

void Server::Worker::ReadFrom(Conn* c) {
  net::IoResult r = net::ReadAvailable(c->fd.get(), &c->in);
  int64_t now = MonotonicNowNs();
  for (;;) {
    frame::RequestFrame f;
    auto n = frame::ParseRequest(c->in.view(), &f);
    if (!n.ok()) {
      // Tell the client why, then drop the connection: its byte stream cannot be resynchronized.
      std::string msg = n.status().message();
      frame::AppendResponse({.id = 0, .status = frame::ResponseStatus::kError, .payload = msg},
                            &c->out);
      Flush(c);
      Close(c);
      return;
    }
    if (*n == 0) break;
    Pending& p = queue.PushSlot();
    p.conn = c;
    p.id = f.id;
    p.op = f.op;
    p.arg = f.arg;
    p.key.assign(f.key);
    p.value.assign(f.value);
    p.arrival_ns = now;
    ++c->pending;
    c->in.Consume(*n);
    if (charge_message) charge_message();  // o for the request received
  }
  if (r.closed || r.error != 0) Close(c);
}

void Server::Worker::Flush(Conn* c) {
  if (c->dead) {
    c->out.clear();
    c->out_off = 0;
    return;
  }
  while (c->out_off < c->out.size()) {
    net::IoResult r = net::WriteSome(c->fd.get(), c->out.data() + c->out_off, c->out.size() - c->out_off);
    c->out_off += r.bytes;
    if (r.closed || r.error != 0) {
      c->out.clear();
      c->out_off = 0;
      Close(c);
      return;
    }
    if (r.would_block && c->out_off < c->out.size()) {
      if (!c->want_write) {
        c->want_write = true;
        (void)poller.Modify(c->fd.get(), EPOLLIN | EPOLLOUT | EPOLLRDHUP, reinterpret_cast<uint64_t>(c));
      }
      return;
    }
  }
  c->out.clear();
  c->out_off = 0;
  if (c->want_write) {
    c->want_write = false;
    (void)poller.Modify(c->fd.get(), EPOLLIN | EPOLLRDHUP, reinterpret_cast<uint64_t>(c));
  }
}

void Server::Worker::FlushAll() {
  for (Conn* c : dirty) {
    c->dirty = false;
    Flush(c);
  }
  dirty.clear();
  first_unflushed_ns = 0;
}

void Server::Worker::ServeFront() {
  Pending& p = queue.front();
  Conn* c = p.conn;
  --c->pending;
  if (c->dead) {
    queue.Pop();
    return;
  }
  int64_t start = MonotonicNowNs();  // dequeued
  frame::RequestFrame f{.id = p.id, .op = p.op, .arg = p.arg, .key = p.key, .value = p.value};
  payload.clear();
  frame::ResponseStatus status = handler->Handle(f, &payload);
  size_t at = c->out.size();
  c->out.resize(at + frame::ResponseBytes(payload.size()));
  char* dst = c->out.data() + at;
  frame::WriteResponseHeader(p.id, status, payload.size(), dst);
  if (!payload.empty()) std::memcpy(dst + frame::kResponseHeaderBytes, payload.data(), payload.size());
  int64_t end = MonotonicNowNs();  // response written into the connection's output
  frame::PatchResponseTimes(dst, end - start, start - p.arrival_ns);
  mean_service_ns += (end - start - mean_service_ns) / 8;
  // o for the response sent, outside the reported service time: that stays the handler's own,
  // and o shows as the CPU demand's S0 + 2·o (the monitor's CPU per request).
  if (charge_message) charge_message();
  queue.Pop();
  served.fetch_add(1, std::memory_order_relaxed);
  if (!c->dirty) {
    c->dirty = true;
    dirty.push_back(c);
  }
  if (first_unflushed_ns == 0) first_unflushed_ns = end;
}

void Server::Worker::Run() {
  (void)UseTightTimerSlack();
  epoll_event events[64];
  for (;;) {
    auto n = poller.Wait(events, 64, queue.empty() ? -1 : 0);
    if (!n.ok()) break;
    for (int i = 0; i < *n; ++i) {
      uint64_t tag = events[i].data.u64;
      if (tag == 0) {
        notifier.Drain();
        Adopt();
        continue;
      }
      auto* c = reinterpret_cast<Conn*>(tag);
      if (c->dead) continue;
      if (events[i].events & EPOLLOUT) Flush(c);
      if (events[i].events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)) ReadFrom(c);
    }
    if (stopping->load(std::memory_order_relaxed)) break;
    int64_t last_poll = MonotonicNowNs();
    while (!queue.empty()) {
      ServeFront();
      int64_t now = MonotonicNowNs();
      if (first_unflushed_ns != 0 && now - first_unflushed_ns + mean_service_ns >= kFlushAfterNs) {
        FlushAll();
      }
      if (now - last_poll >= kRepollEveryNs) break;
    }
    if (queue.empty()) FlushAll();
    Reap();
  }
  FlushAll();
  while (!queue.empty()) {
    --queue.front().conn->pending;
    queue.Pop();
  }
  for (Conn* c : conns) delete c;
  conns.clear();
  graveyard.clear();
}

struct Server::AcceptorState {
  net::Fd listener;
  net::Notifier stop;
  net::Poller poller;
};

Result<std::unique_ptr<Server>> Server::Start(const ServerOptions& options, HandlerFactory factory) {
  if (options.threads < 1 || options.threads > 1024) {
    return InvalidArgument("--threads must be in 1..1024, not " + std::to_string(options.threads));
  }
  std::unique_ptr<Server> s(new Server());
  s->acceptor_state_ = std::make_unique<AcceptorState>();
  REAM_ASSIGN_OR_RETURN(s->acceptor_state_->listener, net::Listen(options.bind, options.port));
  REAM_ASSIGN_OR_RETURN(s->port_, net::LocalPort(s->acceptor_state_->listener.get()));
  REAM_ASSIGN_OR_RETURN(s->acceptor_state_->stop, net::Notifier::Create());
  REAM_ASSIGN_OR_RETURN(s->acceptor_state_->poller, net::Poller::Create());
  REAM_RETURN_IF_ERROR(s->acceptor_state_->poller.Add(s->acceptor_state_->listener.get(), EPOLLIN, 1));
  REAM_RETURN_IF_ERROR(s->acceptor_state_->poller.Add(s->acceptor_state_->stop.fd(), EPOLLIN, 2));
  ChargeFn charge = TakeOverMessageOverhead();
  for (int i = 0; i < options.threads; ++i) {
    auto w = std::make_unique<Worker>();
    w->index = i;
    w->charge_message = charge;
    w->handler = factory(i);
    w->stopping = &s->stopping_;
    REAM_ASSIGN_OR_RETURN(w->poller, net::Poller::Create());
    REAM_ASSIGN_OR_RETURN(w->notifier, net::Notifier::Create());
    REAM_RETURN_IF_ERROR(w->poller.Add(w->notifier.fd(), EPOLLIN, 0));
    s->workers_.push_back(std::move(w));
  }
  for (auto& w : s->workers_) {
    Worker* wp = w.get();
    w->thread = std::thread([wp] { wp->Run(); });
  }
  Server* sp = s.get();
  s->acceptor_ = std::thread([sp] { sp->AcceptLoop(); });
  return s;
}

void Server::AcceptLoop() {
  size_t next = 0;
  epoll_event events[2];
  while (!stopping_.load()) {
    auto n = acceptor_state_->poller.Wait(events, 2, -1);
    if (!n.ok()) break;
    bool stop = false;
    for (int i = 0; i < *n; ++i) stop = stop || events[i].data.u64 == 2;
    if (stop) break;
    for (;;) {
      auto fd = net::Accept(acceptor_state_->listener.get());
      if (!fd.ok() || !fd->valid()) break;
      Worker* w = workers_[next++ % workers_.size()].get();
      {
        std::lock_guard<std::mutex> lock(w->inbox_mu);
        w->inbox.push_back(fd->release());
      }
      w->notifier.Notify();
    }
  }
}

uint64_t Server::served() const {
  uint64_t total = 0;
  for (const auto& w : workers_) total += w->served.load(std::memory_order_relaxed);
  return total;
}

void Server::Stop() {
  if (stopping_.exchange(true)) return;
  acceptor_state_->stop.Notify();
  if (acceptor_.joinable()) acceptor_.join();
  for (auto& w : workers_) w->notifier.Notify();
  for (auto& w : workers_) {
    if (w->thread.joinable()) w->thread.join();
    std::lock_guard<std::mutex> lock(w->inbox_mu);
    for (int fd : w->inbox) net::Fd closer(fd);
    w->inbox.clear();
  }
}

Server::~Server() { Stop(); }

Status ServeUntilSignalled(Server& server, int signal_fd) {
  REAM_ASSIGN_OR_RETURN(net::Poller poller, net::Poller::Create());
  REAM_RETURN_IF_ERROR(poller.Add(signal_fd, EPOLLIN, 1));
  epoll_event ev;
  for (;;) {
    auto n = poller.Wait(&ev, 1, -1);
    if (!n.ok()) {
      server.Stop();
      return n.status();
    }
    if (*n > 0) break;
  }
  server.Stop();
  return Status::Ok();
}

}  // namespace ream
