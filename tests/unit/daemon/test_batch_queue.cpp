// BatchQueue (daemon/batch_queue.h): the bounded queue between the daemon's sources and its
// store writer. First in, first out; a full queue makes producers wait (back-pressure, never
// loss); close() releases waiting producers with false and keeps what was accepted; pop_for
// gives up after its timeout.
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <set>
#include <thread>
#include <vector>

#include "daemon/batch_queue.h"

namespace batch_queue_test {

using namespace std::chrono_literals;
using ibw::daemon::BatchQueue;
using ibw::store::WriteBatch;

WriteBatch tagged(const std::string& tag) {
  WriteBatch b;
  b.cursors.emplace_back("tag", tag);
  return b;
}
std::string tag_of(const WriteBatch& b) {
  return b.cursors.at(0).second;
}

TEST_CASE("batch queue: first in first out - pop_for gives up on an empty queue", "[daemon]") {
  BatchQueue q(4);
  REQUIRE(q.push(tagged("a")));
  REQUIRE(q.push(tagged("b")));
  CHECK(q.size() == 2);
  CHECK(tag_of(*q.pop_for(0ms)) == "a");
  CHECK(tag_of(*q.pop_for(0ms)) == "b");
  CHECK(q.size() == 0);
  auto start = std::chrono::steady_clock::now();
  CHECK_FALSE(q.pop_for(50ms));
  CHECK(std::chrono::steady_clock::now() - start >= 50ms);
}

TEST_CASE("batch queue: a full queue holds the producer until a batch is taken", "[daemon]") {
  BatchQueue q(2);
  REQUIRE(q.push(tagged("1")));
  REQUIRE(q.push(tagged("2")));
  std::atomic<bool> pushed{false}, accepted{false};
  std::thread producer([&] {  // Catch's assertions stay on this thread
    accepted = q.push(tagged("3"));
    pushed = true;
  });
  std::this_thread::sleep_for(150ms);
  CHECK_FALSE(pushed);  // waiting, not dropped and not over capacity
  CHECK(q.size() == 2);
  CHECK(tag_of(*q.pop_for(1s)) == "1");
  producer.join();
  CHECK(accepted);
  CHECK(q.size() == 2);
  CHECK(tag_of(*q.pop_for(1s)) == "2");
  CHECK(tag_of(*q.pop_for(1s)) == "3");
}

TEST_CASE("batch queue: close releases a waiting producer - accepted batches still come out",
          "[daemon]") {
  BatchQueue q(1);
  REQUIRE(q.push(tagged("kept")));
  std::atomic<int> result{-1};
  std::thread producer([&] { result = q.push(tagged("late")) ? 1 : 0; });
  std::this_thread::sleep_for(100ms);
  CHECK(result == -1);
  q.close();
  producer.join();
  CHECK(result == 0);
  CHECK_FALSE(q.push(tagged("after close")));
  auto b = q.pop_for(100ms);
  REQUIRE(b);
  CHECK(tag_of(*b) == "kept");
  CHECK_FALSE(q.pop_for(10ms));
}

TEST_CASE("batch queue: many producers - every batch comes out once", "[daemon]") {
  BatchQueue q(3);
  const int producers = 4, each = 200;
  std::vector<std::thread> threads;
  for (int p = 0; p < producers; ++p)
    threads.emplace_back([&q, p] {
      for (int i = 0; i < each; ++i) q.push(tagged(std::to_string(p * each + i)));
    });
  std::multiset<std::string> seen;
  std::vector<int> last(producers, -1);
  bool in_order = true;  // each producer's batches in the order it pushed them
  while (seen.size() < static_cast<size_t>(producers * each)) {
    auto b = q.pop_for(2s);
    REQUIRE(b);
    CHECK(q.size() <= 3);
    int n = std::stoi(tag_of(*b));
    in_order = in_order && n % each > last[n / each];
    last[n / each] = n % each;
    seen.insert(tag_of(*b));
  }
  for (auto& t : threads) t.join();
  CHECK(in_order);
  CHECK(std::set<std::string>(seen.begin(), seen.end()).size() == seen.size());
  CHECK(q.size() == 0);
}

}  // namespace batch_queue_test
