// RootedPlatform: the unit tests' fake. Files come from a fixture tree; commands from a
// scripted runner; clocks are manual.
#include "platform/platform.h"

namespace ream {

RootedPlatform::RootedPlatform(std::string root, Runner runner)
    : host_(MakePosixPlatform()), root_(std::move(root)), runner_(std::move(runner)) {
  while (root_.size() > 1 && root_.back() == '/') root_.pop_back();
}

Result<std::unique_ptr<RootedPlatform>> RootedPlatform::Open(const std::string& root,
                                                             Runner runner) {
  auto host = MakePosixPlatform();
  if (!host->IsDirectory(root)) {
    return NotFound("fixture root '" + root + "' does not exist or is not a directory");
  }
  return std::make_unique<RootedPlatform>(root, std::move(runner));
}

std::string RootedPlatform::Map(const std::string& path) const {
  if (path.empty() || path[0] != '/') return root_ + "/" + path;
  return root_ + path;
}

Result<std::string> RootedPlatform::ReadFile(const std::string& path) {
  return host_->ReadFile(Map(path));
}
Status RootedPlatform::WriteFile(const std::string& path, const std::string& content) {
  return host_->WriteFile(Map(path), content);
}
Status RootedPlatform::AppendFile(const std::string& path, const std::string& content) {
  return host_->AppendFile(Map(path), content);
}
Result<std::unique_ptr<std::ostream>> RootedPlatform::OpenForWriting(const std::string& path) {
  return host_->OpenForWriting(Map(path));
}
Status RootedPlatform::RenameFile(const std::string& from, const std::string& to) {
  return host_->RenameFile(Map(from), Map(to));
}
bool RootedPlatform::Exists(const std::string& path) { return host_->Exists(Map(path)); }
bool RootedPlatform::IsDirectory(const std::string& path) {
  return host_->IsDirectory(Map(path));
}
Result<std::vector<DirEntry>> RootedPlatform::ListDir(const std::string& path) {
  return host_->ListDir(Map(path));
}
Status RootedPlatform::MakeDir(const std::string& path) { return host_->MakeDir(Map(path)); }
Status RootedPlatform::RemoveDir(const std::string& path) { return host_->RemoveDir(Map(path)); }
Status RootedPlatform::RemoveFile(const std::string& path) {
  return host_->RemoveFile(Map(path));
}
bool RootedPlatform::IsSymlink(const std::string& path) { return host_->IsSymlink(Map(path)); }
Status RootedPlatform::RemoveTreeNoFollow(const std::string& path) {
  return host_->RemoveTreeNoFollow(Map(path));
}

Result<std::string> RootedPlatform::RealPath(const std::string& path) {
  auto r = host_->RealPath(Map(path));
  if (!r.ok()) return r;
  std::string p = *r;
  if (p.rfind(root_, 0) == 0) p = p.substr(root_.size());
  return p.empty() ? std::string("/") : p;
}
Result<CommandResult> RootedPlatform::Run(const std::vector<std::string>& argv,
                                          std::chrono::milliseconds /*timeout*/) {
  commands_.push_back(argv);
  if (!runner_) return NotFound("fake platform: no command runner for '" + argv.at(0) + "'");
  return runner_(argv);
}
Result<std::string> RootedPlatform::FindExecutable(const std::string& name) {
  if (!runner_) return NotFound("'" + name + "' not found (fake platform)");
  return "/usr/bin/" + name;
}
void RootedPlatform::SleepFor(std::chrono::nanoseconds duration) {
  if (duration.count() <= 0) return;
  {
    std::lock_guard<std::mutex> lock(sleeps_mu_);
    sleeps_.push_back(duration);
  }
  now_ns_ += duration.count();
}
std::vector<std::chrono::nanoseconds> RootedPlatform::sleeps() const {
  std::lock_guard<std::mutex> lock(sleeps_mu_);
  return sleeps_;
}
Status RootedPlatform::ProbePerfLlcMisses() { return perf_status_; }

namespace {
class FakeEventCounter : public EventCounter {
 public:
  explicit FakeEventCounter(std::shared_ptr<std::atomic<uint64_t>> v) : v_(std::move(v)) {}
  Result<uint64_t> Read() override { return v_->load(); }

 private:
  std::shared_ptr<std::atomic<uint64_t>> v_;
};
}  // namespace

Result<std::unique_ptr<EventCounter>> RootedPlatform::OpenCgroupLlcMisses(const std::string& cgroup_dir,
                                                                          const std::vector<int>& cpus) {
  {
    std::lock_guard<std::mutex> lock(llc_mu_);
    llc_miss_opens_.emplace_back(cgroup_dir, cpus);
  }
  if (!perf_status_.ok()) return perf_status_;
  if (!llc_misses_) return Unsupported("fake platform: no LLC-miss counter for cgroup " + cgroup_dir);
  return std::unique_ptr<EventCounter>(new FakeEventCounter(llc_misses_));
}

std::vector<std::pair<std::string, std::vector<int>>> RootedPlatform::llc_miss_opens() const {
  std::lock_guard<std::mutex> lock(llc_mu_);
  return llc_miss_opens_;
}
Result<int> RootedPlatform::KvmApiVersion() { return NotFound("open /dev/kvm: fake platform"); }
Result<int64_t> RootedPlatform::FilesystemMagic(const std::string& path) {
  if (fs_magic_ != 0) return fs_magic_;
  return host_->FilesystemMagic(Map(path));
}

}  // namespace ream
