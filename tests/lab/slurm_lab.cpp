#include "tests/lab/slurm_lab.h"

#include <dirent.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <stdexcept>
#include <thread>

namespace ibw::lab {
namespace fs = std::filesystem;
namespace {

// A TCP port nothing listens on now (bound to 0, then closed): the small race with another
// process taking it before slurmctld does is accepted in tests.
int free_port() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  if (fd < 0 || bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
    if (fd >= 0) close(fd);
    throw std::runtime_error("SlurmLab: cannot pick a free TCP port");
  }
  close(fd);
  return ntohs(a.sin_port);
}

void require_tools() {
  for (const char* tool :
       {"/usr/sbin/munged", "/usr/sbin/slurmctld", "/usr/sbin/slurmd", "/usr/bin/scontrol"})
    if (access(tool, X_OK) != 0)
      throw std::runtime_error(std::string("SlurmLab: ") + tool +
                               " not found (Debian packages munge slurmctld slurmd "
                               "slurm-client): run scripts/install-deps.sh");
}

void write_key(const std::string& path) {
  std::random_device rd;
  std::string key(1024, '\0');
  for (char& c : key) c = static_cast<char>(rd());
  std::ofstream(path, std::ios::binary) << key;
  chmod(path.c_str(), 0600);
}

std::string slurm_conf(const std::string& dir, const std::vector<std::string>& nodes, int ctld_port,
                       int slurmd_port, int dead_port) {
  std::string c =
      "ClusterName=ibwlab\nSlurmctldHost=localhost\nSlurmctldPort=" + std::to_string(ctld_port) +
      "\nSlurmUser=root\nSlurmdUser=root\nAuthType=auth/munge\nAuthInfo=socket=" + dir +
      "/munge.sock\nCredType=cred/munge\nStateSaveLocation=" + dir +
      "/state\nSlurmdSpoolDir=" + dir + "/spool\nSlurmctldPidFile=" + dir +
      "/slurmctld.pid\nSlurmdPidFile=" + dir + "/slurmd.pid\nSlurmctldLogFile=" + dir +
      "/slurmctld.log\nSlurmdLogFile=" + dir + "/slurmd.log\nPlugStackConfig=" + dir +
      "/plugstack.conf\n"
      "ProctrackType=proctrack/linuxproc\nTaskPlugin=task/none\n"
      "JobAcctGatherType=jobacct_gather/none\nAccountingStorageType=accounting_storage/none\n"
      "JobCompType=jobcomp/none\nMpiDefault=none\nSwitchType=switch/none\n"
      "SchedulerType=sched/builtin\nSelectType=select/cons_tres\nSelectTypeParameters=CR_Core\n"
      "ReturnToService=2\nSlurmdTimeout=300\nSlurmctldTimeout=30\nMessageTimeout=5\n";
  for (size_t i = 0; i < nodes.size(); ++i)
    c += "NodeName=" + nodes[i] +
         " NodeAddr=127.0.0.1 Port=" + std::to_string(i == 0 ? slurmd_port : dead_port) +
         " CPUs=1 RealMemory=100 State=UNKNOWN\n";
  c += "PartitionName=lab Nodes=ALL Default=YES MaxTime=INFINITE State=UP\n";
  return c;
}

// Kills the job steps (slurmstepd) and job processes (SLURM_JOB_ID set) whose environment
// carries SLURM_CONF=conf: what a slurmd of this lab started and left outside its process
// group. Other processes given this SLURM_CONF (an ibwarden under test) are left alone.
void kill_lab_processes(const std::string& conf) {
  std::string needle = std::string(1, '\0') + "SLURM_CONF=" + conf + '\0';
  DIR* d = opendir("/proc");
  if (!d) return;
  while (dirent* e = readdir(d)) {
    pid_t pid = std::atoi(e->d_name);
    if (pid <= 0 || pid == getpid()) continue;
    std::string proc = "/proc/" + std::string(e->d_name);
    std::string env = '\0' + slurp_file(proc + "/environ") + '\0';
    if (env.find(needle) == std::string::npos) continue;
    bool step = slurp_file(proc + "/comm").rfind("slurmstepd", 0) == 0;
    if (step || env.find(std::string(1, '\0') + "SLURM_JOB_ID=") != std::string::npos)
      kill(pid, SIGKILL);
  }
  closedir(d);
}

}  // namespace

SlurmLab::SlurmLab(std::vector<std::string> nodes) : nodes_(std::move(nodes)) {
  if (nodes_.empty()) throw std::runtime_error("SlurmLab: no nodes");
  require_tools();
  auto t0 = std::chrono::steady_clock::now();
  std::string tmpl = "/tmp/ibw-slurm-XXXXXX";  // short: munge's socket path
  if (mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("SlurmLab: no temp dir");
  dir_ = tmpl;
  conf_ = dir_ + "/slurm.conf";
  try {
    chmod(dir_.c_str(), 0711);  // munged wants its socket's dir executable by all
    fs::create_directories(dir_ + "/state");
    fs::create_directories(dir_ + "/spool");
    std::ofstream(dir_ + "/plugstack.conf").flush();
    write_key(dir_ + "/munge.key");
    std::ofstream(conf_) << slurm_conf(dir_, nodes_, free_port(), free_port(), free_port());
    munged_ = spawn_child({"munged", "-F", "--key-file=" + dir_ + "/munge.key",
                           "--socket=" + dir_ + "/munge.sock", "--pid-file=" + dir_ + "/munged.pid",
                           "--seed-file=" + dir_ + "/munged.seed", "--num-threads=2"},
                          dir_, {}, -1, dir_ + "/munged.out", dir_ + "/munged.err");
    auto deadline = t0 + std::chrono::seconds(20);
    while (!fs::exists(dir_ + "/munge.sock")) {
      if (!child_alive(munged_) || std::chrono::steady_clock::now() > deadline)
        throw std::runtime_error("SlurmLab: munged did not start:\n" +
                                 text_tail(slurp_file(dir_ + "/munged.err")));
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    slurmctld_ = spawn_child({"slurmctld", "-D", "-i", "-f", conf_}, dir_, env(), -1,
                             dir_ + "/slurmctld.out", dir_ + "/slurmctld.err");
    slurmd_ = spawn_child({"slurmd", "-D", "-N", slurmd_node(), "-f", conf_}, dir_, env(), -1,
                          dir_ + "/slurmd.out", dir_ + "/slurmd.err");
    // Ready when the slurmd has registered: its node is IDLE (not UNKNOWN).
    while (true) {
      RunResult r = run({"scontrol", "show", "node", "-o", slurmd_node()}, std::chrono::seconds(5));
      if (r.status == 0 && r.out.find("State=IDLE") != std::string::npos) break;
      if (!child_alive(slurmctld_) || !child_alive(slurmd_) ||
          std::chrono::steady_clock::now() > deadline)
        throw std::runtime_error("SlurmLab: Slurm did not come up:\n" +
                                 text_tail(slurp_file(dir_ + "/slurmctld.log"), 800) + "\n" +
                                 text_tail(slurp_file(dir_ + "/slurmd.log"), 800) + "\n" +
                                 text_tail(r.err, 300));
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  } catch (...) {
    teardown();
    throw;
  }
  start_time_ =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0);
}

SlurmLab::~SlurmLab() {
  teardown();
}

void SlurmLab::teardown() {
  if (child_alive(slurmctld_)) {
    RunResult q = run({"squeue", "-h", "-o", "%i"}, std::chrono::seconds(5));
    if (q.status == 0 && !q.out.empty()) {
      run({"scancel", "--quiet", "--user=root"}, std::chrono::seconds(5));
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
  }
  stop_child(slurmd_);
  stop_child(slurmctld_);
  kill_lab_processes(conf_);
  stop_child(munged_);
  if (!std::getenv("IBW_KEEP_LAB") && !dir_.empty()) {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
}

RunResult SlurmLab::run(const std::vector<std::string>& argv, std::chrono::seconds timeout) const {
  static std::atomic<int> seq{0};
  return run_child(argv, dir_, env(), dir_ + "/run" + std::to_string(seq++), timeout);
}

namespace {
std::string checked(const RunResult& r, const std::string& what) {
  if (r.status != 0)
    throw std::runtime_error("SlurmLab: " + what + " exited " + std::to_string(r.status) + ": " +
                             text_tail(r.err + r.out, 500));
  return r.out;
}
}  // namespace

std::string SlurmLab::sbatch(const std::string& node, const std::string& command,
                             const std::string& name) const {
  std::string out = checked(run({"sbatch", "--parsable", "-w", node, "-J", name, "-o",
                                 dir_ + "/job-%j.out", "--wrap", command}),
                            "sbatch");
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  return out.substr(0, out.find(';'));  // "ID" or "ID;cluster"
}

std::string SlurmLab::show_node(const std::string& node) const {
  return checked(run({"scontrol", "show", "node", "-o", node}), "scontrol show node");
}

std::string SlurmLab::squeue() const {
  return checked(run({"squeue", "-h", "-o", "%i|%u|%D|%N|%T"}), "squeue");
}

void SlurmLab::drain(const std::string& node, const std::string& reason) const {
  checked(run({"scontrol", "update", "nodename=" + node, "state=drain", "reason=" + reason}),
          "scontrol update");
}

bool SlurmLab::wait_running(const std::string& id, std::chrono::seconds timeout) const {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    RunResult r = run({"squeue", "-h", "-j", id, "-o", "%T"});
    if (r.status == 0 && r.out.find("RUNNING") != std::string::npos) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return false;
}

}  // namespace ibw::lab
