// ProbeSpool against files it must not read (issue 31, attack rows 5 and 8): a symlink
// leak.csv -> tokens, a hard link, a FIFO, a 10 MB file; and a bad file's errors that quote a
// secret. Nothing of the target is copied into failed/ or the rejection, memory stays bounded.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <utime.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "ingest/probe_spool.h"
#include "tests/unit/test_helpers.h"
#include "tests/unit/test_store_helpers.h"

using namespace ibw;

namespace spool_guard_test {

namespace fs = std::filesystem;

constexpr const char* kToken = "Kx81mWq0vYt5Lp2zRb7Nc4Jd";
const int64_t kNow = int64_t{1'800'000'000} * 1'000'000;

void age(const std::string& path) {  // settled: ten seconds old (the link itself for a symlink)
  timespec t[2] = {{1'800'000'000 - 10, 0}, {1'800'000'000 - 10, 0}};
  ::utimensat(AT_FDCWD, path.c_str(), t, AT_SYMLINK_NOFOLLOW);
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// Everything the spool wrote or reported: the .errors files (the files themselves are moved,
// never copied) and the rejections.
std::string everything(const std::string& spool, const ingest::SpoolResult& r) {
  std::string all;
  for (const auto& e : fs::directory_iterator(spool + "/failed"))
    if (e.path().extension() == ".errors") all += slurp(e.path().string());
  for (const auto& s : r.rejected) all += s + "\n";
  return all;
}

}  // namespace spool_guard_test

using namespace spool_guard_test;

TEST_CASE("spool guard: a symlink to the tokens file is refused unread", "[observation]") {
  store_test::TempDir dir;
  std::string spool = dir.file("spool"), tokens = dir.file("tokens");
  std::ofstream(tokens) << "admin " << kToken << "\n";
  ingest::ProbeSpool s(spool, 1'000'000);
  fs::create_symlink(tokens, spool + "/leak.csv");
  age(spool + "/leak.csv");
  auto r = s.poll(kNow);
  REQUIRE(r.rejected.size() == 1);
  INFO(r.rejected[0]);
  CHECK(r.rejected[0].find("a symbolic link (not followed, not read)") != std::string::npos);
  CHECK(r.refused["spool_not_regular"] == 1);
  std::string all = everything(spool, r);
  CHECK(all.find(std::string(kToken).substr(0, 6)) == std::string::npos);
  CHECK(fs::is_symlink(spool + "/failed/leak.csv"));  // the link moved, the target untouched
  CHECK(slurp(tokens) == "admin " + std::string(kToken) + "\n");
  CHECK(r.observations.empty());
  WARN("symlink leak.csv -> tokens: token characters in failed/ and the report: "
       << (all.find(kToken) == std::string::npos ? 0 : 1));
}

TEST_CASE("spool guard: hard links and FIFOs are refused - a FIFO never blocks", "[observation]") {
  store_test::TempDir dir;
  std::string spool = dir.file("spool"), tokens = dir.file("tokens");
  std::ofstream(tokens) << "admin " << kToken << "\n";
  ingest::ProbeSpool s(spool, 1'000'000);
  REQUIRE(::link(tokens.c_str(), (spool + "/hard.csv").c_str()) == 0);
  REQUIRE(::mkfifo((spool + "/pipe.jsonl").c_str(), 0600) == 0);
  age(spool + "/hard.csv"), age(spool + "/pipe.jsonl");
  auto start = std::chrono::steady_clock::now();
  auto r = s.poll(kNow);
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(2));
  REQUIRE(r.rejected.size() == 2);
  CHECK(r.rejected[0].find("hard.csv: ") == 0);
  CHECK(r.rejected[0].find("a hard link to another file (2 links; not read)") != std::string::npos);
  CHECK(r.rejected[1].find("pipe.jsonl: ") == 0);
  CHECK(r.rejected[1].find("not a regular file") != std::string::npos);
  CHECK(r.refused["spool_not_regular"] == 2);
  CHECK(fs::exists(spool + "/failed/hard.csv.errors"));
  CHECK(everything(spool, r).find(std::string(kToken).substr(0, 6)) == std::string::npos);
}

TEST_CASE("spool guard: a 10 MB file is refused unread within bounded memory", "[observation]") {
  store_test::TempDir dir;
  std::string spool = dir.file("spool");
  ingest::ProbeSpool s(spool, 1'000'000);  // probes.spool_max_bytes: 4 MiB by default
  {
    std::ofstream f(spool + "/big.jsonl");
    std::string line = "{\"src\":\"host001\",\"dst\":\"host002\",\"sent\":100,\"lost\":1}\n";
    for (size_t n = 0; n < (10u << 20); n += line.size()) f << line;
  }
  age(spool + "/big.jsonl");
  int64_t before = test::rss_bytes();
  auto r = s.poll(kNow);
  int64_t grew = test::rss_bytes() - before;
  REQUIRE(r.rejected.size() == 1);
  INFO(r.rejected[0]);
  CHECK(r.rejected[0].find("over the 4194304-byte cap (probes.spool_max_bytes; not read)") !=
        std::string::npos);
  CHECK(r.refused["spool_too_big"] == 1);
  CHECK(grew < 16 << 20);
  CHECK(fs::exists(spool + "/failed/big.jsonl"));
  WARN("10 MB spool file: refused unread, RSS +" << grew / 1024 << " KiB");
}

TEST_CASE("spool guard: errors quote a short masked excerpt - at most 100 lines", "[observation]") {
  store_test::TempDir dir;
  std::string spool = dir.file("spool");
  ingest::ProbeSpool s(spool, 1'000'000);
  {
    std::ofstream f(spool + "/secret.csv");  // a secret where a count belongs, 300 bad rows
    f << "src,dst,sent,lost\nx,y,admin " << kToken << ",1\n";
    for (int i = 0; i < 300; ++i) f << "x,y,q,1\n";
  }
  age(spool + "/secret.csv");
  auto r = s.poll(kNow);
  REQUIRE(r.rejected.size() == 1);
  std::string errors = slurp(spool + "/failed/secret.csv.errors");
  INFO(errors.substr(0, 400));
  CHECK(errors.find(std::string(kToken).substr(0, 6)) == std::string::npos);
  CHECK(errors.find("admin Kx***") != std::string::npos);
  size_t lines = static_cast<size_t>(std::count(errors.begin(), errors.end(), '\n'));
  CHECK(lines == ingest::ProbeSpool::kMaxErrorLines + 1);
  CHECK(errors.find(" more errors\n") != std::string::npos);
  CHECK(r.rejected[0].find(std::string(kToken).substr(0, 6)) == std::string::npos);
}
