// FileTailer on real files in temporary directories: appends, partial lines, rename rotation
// and copytruncate (losing and repeating no line), restarts from a persisted cursor (also
// across rotations while stopped), and the cursor's text form.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "ingest/file_tailer.h"

using ibw::ingest::FileTailer;
using ibw::ingest::TailCursor;
using ibw::ingest::TailLine;
namespace fs = std::filesystem;

namespace {

struct TempDir {
  fs::path path;
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "ibw-tail-XXXXXX").string();
    REQUIRE(mkdtemp(tmpl.data()));
    path = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

// A logger: appends through its own O_APPEND descriptor, like OpenSM does.
struct Writer {
  std::string path;
  int fd = -1;
  explicit Writer(std::string p) : path(std::move(p)) { reopen(); }
  ~Writer() {
    if (fd >= 0) close(fd);
  }
  void reopen() {
    if (fd >= 0) close(fd);
    fd = open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    REQUIRE(fd >= 0);
  }
  void write(const std::string& s) {
    REQUIRE(::write(fd, s.data(), s.size()) == static_cast<ssize_t>(s.size()));
  }
};

std::vector<std::string> texts(const std::vector<TailLine>& lines) {
  std::vector<std::string> out;
  for (const auto& l : lines) out.push_back(l.text);
  return out;
}

// Polls until nothing more comes.
std::vector<TailLine> drain(FileTailer& t, size_t batch = 100000) {
  std::vector<TailLine> all;
  for (;;) {
    auto got = t.poll(batch);
    if (got.empty()) return all;
    all.insert(all.end(), got.begin(), got.end());
  }
}

uint64_t inode_of(const std::string& path) {
  struct stat st;
  REQUIRE(stat(path.c_str(), &st) == 0);
  return st.st_ino;
}

void copy_file(const std::string& from, const std::string& to) {
  std::ifstream in(from, std::ios::binary);
  std::ofstream out(to, std::ios::binary | std::ios::trunc);
  out << in.rdbuf();
}

// logrotate's numbering: <path>.1 .. <path>.keep, the oldest dropped.
void shift_rotated(const std::string& path, int keep) {
  fs::remove(path + "." + std::to_string(keep));
  for (int k = keep - 1; k >= 1; --k)
    if (fs::exists(path + "." + std::to_string(k)))
      fs::rename(path + "." + std::to_string(k), path + "." + std::to_string(k + 1));
}

std::string numbered(int i) {
  return "line " + std::to_string(i) + " of the log, with some padding to make it longer";
}

}  // namespace

TEST_CASE("file tailer: appends - partial lines and cursors", "[tailer]") {
  TempDir dir;
  std::string path = (dir.path / "opensm.log").string();
  Writer w(path);
  FileTailer t(path, std::nullopt);
  CHECK(t.poll().empty());
  CHECK(t.error().empty());
  w.write("a\nb");
  auto got = t.poll();
  REQUIRE(texts(got) == std::vector<std::string>{"a"});
  CHECK(got[0].after.offset == 2);
  CHECK(got[0].after.inode == inode_of(path));
  CHECK(got[0].after.fingerprint != 0);
  CHECK(t.poll().empty());  // "b" is held back until its newline
  w.write("c\n\nd\r\n");
  got = t.poll();
  REQUIRE(texts(got) == std::vector<std::string>{"bc", "", "d\r"});  // byte-exact
  CHECK(got[0].after.offset == 5);
  CHECK(got[2].after.offset == 9);
  CHECK(got[2].after.fingerprint == got[0].after.fingerprint);

  // max_lines splits a backlog into batches, in order.
  for (int i = 0; i < 10; ++i) w.write(numbered(i) + "\n");
  std::vector<std::string> batched;
  for (auto batch = t.poll(3); !batch.empty(); batch = t.poll(3)) {
    CHECK(batch.size() <= 3);
    for (auto& l : batch) batched.push_back(l.text);
  }
  CHECK(batched.size() == 10);
  CHECK(batched.front() == numbered(0));
  CHECK(batched.back() == numbered(9));
}

TEST_CASE("file tailer: start_at_end and a file that appears later", "[tailer]") {
  TempDir dir;
  std::string path = (dir.path / "opensm.log").string();
  {
    Writer w(path);
    w.write("old 1\nold 2\npart");
    FileTailer t(path, std::nullopt, /*start_at_end=*/true);
    CHECK(t.poll().empty());
    w.write("ial\nnew\n");
    CHECK(texts(t.poll()) == std::vector<std::string>{"partial", "new"});
  }
  std::string later = (dir.path / "later.log").string();
  FileTailer t(later, std::nullopt, /*start_at_end=*/true);
  CHECK(t.poll().empty());
  CHECK_FALSE(t.error().empty());
  Writer w(later);
  w.write("first\n");
  CHECK(texts(t.poll()) == std::vector<std::string>{"first"});  // created after the start
  CHECK(t.error().empty());
}

TEST_CASE("file tailer: rename rotation drains the old file first", "[tailer]") {
  TempDir dir;
  std::string path = (dir.path / "opensm.log").string();
  Writer w(path);
  FileTailer t(path, std::nullopt);
  w.write("one\ntw");
  CHECK(texts(t.poll()) == std::vector<std::string>{"one"});
  fs::rename(path, path + ".1");
  CHECK(t.poll().empty());  // no file at path: keep the old one
  CHECK(t.error().empty());
  w.write("o\nthree\n");  // the writer has not reopened yet
  CHECK(texts(t.poll()) == std::vector<std::string>{"two", "three"});
  w.write("par");  // a partial line left behind in the rotated file
  w.reopen();
  CHECK(t.poll().empty());  // the new file is empty: the writer might still use the old one
  w.write("four\n");
  auto got = t.poll();
  REQUIRE(texts(got) == std::vector<std::string>{"par", "four"});
  CHECK(got[0].after.inode == inode_of(path + ".1"));
  CHECK(got[0].after.offset == 17);
  CHECK(got[1].after.inode == inode_of(path));
  CHECK(got[1].after.offset == 5);
}

TEST_CASE("file tailer: copytruncate reads the tail from the copy", "[tailer]") {
  TempDir dir;
  std::string path = (dir.path / "opensm.log").string();
  Writer w(path);
  FileTailer t(path, std::nullopt);
  w.write("alpha\nbeta\n");
  CHECK(texts(t.poll()) == std::vector<std::string>{"alpha", "beta"});
  w.write("gamma\ndelta\n");  // not read before the rotation
  copy_file(path, path + ".1");
  REQUIRE(truncate(path.c_str(), 0) == 0);
  w.write("epsilon\n");
  CHECK(texts(t.poll()) == std::vector<std::string>{"gamma", "delta", "epsilon"});
  // Truncated and regrown past the old offset: the changed first line tells.
  w.write("zeta\n");
  CHECK(texts(t.poll()) == std::vector<std::string>{"zeta"});
  REQUIRE(truncate(path.c_str(), 0) == 0);
  w.write("a much longer first line that goes past the previous read offset of the file\n");
  CHECK(t.poll().size() == 1);
}

namespace {

enum class Rotation { rename, copytruncate };

// Writes `total` numbered lines with a seeded random mix of partial writes, polls, rotations
// (several between some polls) and, when `restarts`, tailer restarts from the cursor of the
// last line received (sometimes with rotations while stopped). Returns the lines received.
std::vector<std::string> simulate(Rotation kind, uint32_t seed, int total, bool restarts) {
  TempDir dir;
  std::string path = (dir.path / "opensm.log").string();
  Writer w(path);
  auto tailer = std::make_unique<FileTailer>(path, std::nullopt);
  std::mt19937 rng(seed);
  auto chance = [&](int percent) { return static_cast<int>(rng() % 100) < percent; };
  std::vector<std::string> got;
  std::optional<TailCursor> cursor;
  auto poll = [&] {
    for (auto& l : tailer->poll(1 + rng() % 50)) {
      got.push_back(l.text);
      cursor = l.after;
    }
  };
  // A copytruncate before the tailer has seen the file's first line cannot be told from
  // appends (documented), so the first line is read before any rotation.
  w.write(numbered(0) + "\n");
  poll();
  std::string pending;  // the rest of a line written in two parts
  bool reopen_due = false;
  int copied_at = 0;  // first line written after the last copytruncate
  int next = 1;
  while (next < total || !pending.empty() || reopen_due) {
    if (!pending.empty()) {
      w.write(pending);
      pending.clear();
    } else if (next < total) {
      std::string line = numbered(next++) + "\n";
      size_t cut = chance(30) ? rng() % line.size() : line.size();
      w.write(line.substr(0, cut));
      pending = line.substr(cut);
    }
    if (chance(35)) poll();
    if (reopen_due && pending.empty() && chance(50)) {
      w.reopen();
      reopen_due = false;
    } else if (pending.empty() && !reopen_due && chance(4) &&
               (kind == Rotation::rename || static_cast<int>(got.size()) > copied_at)) {
      // Two copytruncates with nothing read from the file in between cannot be told from
      // appends (documented): the next one waits until a line written since was received.
      copied_at = next;
      shift_rotated(path, 6);
      if (kind == Rotation::rename) {
        fs::rename(path, path + ".1");
        reopen_due = true;  // the writer keeps its old descriptor for a while
      } else {
        copy_file(path, path + ".1");
        REQUIRE(truncate(path.c_str(), 0) == 0);
      }
    }
    if (restarts && cursor && chance(3)) {
      tailer.reset();  // stopped; lines written meanwhile must come after the restart
      tailer = std::make_unique<FileTailer>(path, cursor, /*start_at_end=*/true);
    }
  }
  for (int i = 0; i < 3; ++i) poll();
  for (auto more = tailer->poll(); !more.empty(); more = tailer->poll())
    for (auto& l : more) got.push_back(l.text);
  return got;
}

// "" when equal, else where and how the two sequences first differ.
std::string first_difference(const std::vector<std::string>& got,
                             const std::vector<std::string>& want) {
  for (size_t i = 0; i < std::max(got.size(), want.size()); ++i) {
    std::string g = i < got.size() ? got[i] : "(end)", w = i < want.size() ? want[i] : "(end)";
    if (g != w) return "at " + std::to_string(i) + ": got '" + g + "', want '" + w + "'";
  }
  return "";
}

}  // namespace

TEST_CASE("file tailer: no line lost or repeated across rotations", "[tailer]") {
  const int total = 3000;
  std::vector<std::string> want;
  for (int i = 0; i < total; ++i) want.push_back(numbered(i));
  for (auto kind : {Rotation::rename, Rotation::copytruncate}) {
    for (bool restarts : {false, true}) {
      for (uint32_t seed : {1u, 2u, 3u}) {
        INFO((kind == Rotation::rename ? "rename" : "copytruncate")
             << (restarts ? " with restarts" : "") << ", seed " << seed);
        auto got = simulate(kind, seed, total, restarts);
        CHECK(got.size() == want.size());
        CHECK(first_difference(got, want) == "");
      }
    }
  }
}

TEST_CASE("file tailer: restart from a cursor", "[tailer]") {
  TempDir dir;
  std::string path = (dir.path / "opensm.log").string();
  Writer w(path);
  auto first_run = [&](std::vector<std::string> lines) {
    for (auto& l : lines) w.write(l + "\n");
    FileTailer t(path, std::nullopt);
    auto got = drain(t);
    REQUIRE(!got.empty());
    return got.back().after;
  };

  SECTION("same file, no rotation") {
    TailCursor c = first_run({"a", "b"});
    w.write("c\nd\n");
    FileTailer t(path, c);
    CHECK(texts(drain(t)) == std::vector<std::string>{"c", "d"});
  }
  SECTION("one rename rotation while stopped") {
    TailCursor c = first_run({"a", "b"});
    w.write("c\n");
    fs::rename(path, path + ".1");
    w.write("d\n");
    w.reopen();
    w.write("e\n");
    FileTailer t(path, c);
    CHECK(texts(drain(t)) == std::vector<std::string>{"c", "d", "e"});
  }
  SECTION("two rename rotations while stopped, dated names") {
    TailCursor c = first_run({"a", "b"});
    w.write("c\n");
    fs::rename(path, path + "-20261121");
    w.reopen();
    w.write("d\n");
    fs::rename(path, path + "-20261122");
    w.reopen();
    w.write("e\n");
    FileTailer t(path, c);
    CHECK(texts(drain(t)) == std::vector<std::string>{"c", "d", "e"});
  }
  SECTION("copytruncate while stopped") {
    TailCursor c = first_run({"a", "b"});
    w.write("c\n");
    copy_file(path, path + ".1");
    REQUIRE(truncate(path.c_str(), 0) == 0);
    w.write("d\n");
    FileTailer t(path, c);
    CHECK(texts(drain(t)) == std::vector<std::string>{"c", "d"});
  }
  SECTION("the cursor's file is gone: the current file from the start") {
    TailCursor c = first_run({"a", "b"});
    fs::remove(path);
    w.reopen();
    w.write("x\n");
    FileTailer t(path, c, /*start_at_end=*/true);
    CHECK(texts(drain(t)) == std::vector<std::string>{"x"});
  }
  SECTION("same inode, other first line (inode reuse): from the start") {
    TailCursor c = first_run({"a", "b"});
    c.fingerprint ^= 1;
    FileTailer t(path, c);
    CHECK(texts(drain(t)) == std::vector<std::string>{"a", "b"});
  }
}

TEST_CASE("file tailer: cursor text form", "[tailer]") {
  TailCursor c{2049, 1234567, 890, 0xfedcba9876543210};
  CHECK(c.serialize() == "2049:1234567:890:18364758544493064720");
  CHECK(TailCursor::parse(c.serialize()) == c);
  CHECK(TailCursor::parse("0:0:0:0") == TailCursor{});
  for (const char* bad : {"", "1:2:3", "1:2:3:4:5", "1:2:3:x", "a:2:3:4", "1::3:4", "1:2:3:4 ",
                          "-1:2:3:4", "1:2:3:99999999999999999999999"}) {
    INFO(bad);
    CHECK_FALSE(TailCursor::parse(bad));
  }
}

// poll_chunks is the path read_opensm_log takes: the same lines and cursors as poll(), in
// runs of whole lines, also across reads (a write larger than one read), the max_lines cut
// and a rotation that leaves a partial last line behind.
TEST_CASE("file tailer: poll_chunks gives the lines and cursors of poll", "[tailer]") {
  TempDir dir;
  std::string path = (dir.path / "opensm.log").string();
  Writer w(path);
  FileTailer by_line(path, std::nullopt), by_chunk(path, std::nullopt);
  auto compare = [&](size_t max_lines) {
    for (;;) {
      auto want = by_line.poll(max_lines);
      std::vector<TailLine> got;
      size_t visited = by_chunk.poll_chunks(
          max_lines, [&](std::string_view text, size_t lines, const TailCursor& start) {
            REQUIRE(!text.empty());
            REQUIRE(lines >= 1);
            const bool partial = text.back() != '\n';
            if (partial) CHECK(lines == 1);
            CHECK(static_cast<size_t>(std::count(text.begin(), text.end(), '\n')) ==
                  lines - (partial ? 1 : 0));
            TailCursor after = start;
            size_t pos = 0;
            while (pos < text.size()) {
              size_t nl = std::min(text.find('\n', pos), text.size());
              after.offset = start.offset + std::min(nl + 1, text.size());
              got.push_back(TailLine{std::string(text.substr(pos, nl - pos)), after});
              pos = nl + 1;
            }
          });
      CHECK(visited == got.size());
      REQUIRE(got.size() == want.size());
      for (size_t i = 0; i < got.size(); ++i) {
        CHECK(got[i].text == want[i].text);
        CHECK(got[i].after == want[i].after);
      }
      CHECK(by_chunk.position() == by_line.position());
      if (want.size() < max_lines) return;
    }
  };
  w.write("one\n\ntwo\nthr");
  compare(2);
  std::string big;  // more than one read of the tailer (256 KiB), lines of varied length
  for (int i = 0; big.size() < 600 * 1024; ++i)
    big += numbered(i) + std::string(i % 97, 'x') + "\n";
  w.write("ee\n" + big + "part");
  compare(1000);
  compare(100000);
  fs::rename(path, path + ".1");
  w.write("ial");  // left behind in the rotated file
  w.reopen();
  w.write("four\nfive\n");
  compare(1);
  w.write(big);
  compare(7);
}
