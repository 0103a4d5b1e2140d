// SmpExecutor (actions/smp_executor.h) serialises on the MadLocks it is given (fabric/
// smp_port.h), the process's one instance, and on no lock of its own: while that instance's
// smp lock is held elsewhere (a discovery, the link check, the prober), a port read waits;
// the locks of another instance do not hold it up. There is no umad device here (and the CA
// name is made up), so once the read may go on it fails to open the local port: that
// failure is how the test sees that it went on.
#include <catch2/catch.hpp>

#include <chrono>
#include <future>
#include <mutex>

#include "actions/smp_executor.h"

using namespace ibw::actions;

namespace smp_executor_test {

using namespace std::chrono_literals;

constexpr const char* kNoCa = "ibw-test-no-such-ca";

std::future<void> read_async(SmpExecutor& exec) {
  return std::async(std::launch::async, [&exec] { exec.read(PortAddress{1, ""}, 1); });
}

TEST_CASE("smp executor: a read waits for the smp lock of its MadLocks", "[actions][smp]") {
  ibw::fabric::MadLocks mad;
  SmpExecutor exec(mad, kNoCa, 1, 50);
  std::unique_lock<std::mutex> held(mad.smp);
  auto read = read_async(exec);
  CHECK(read.wait_for(300ms) == std::future_status::timeout);  // waiting for `held`
  held.unlock();
  REQUIRE(read.wait_for(30s) == std::future_status::ready);
  CHECK_THROWS_WITH(read.get(), Catch::Contains("cannot open the local port"));
}

TEST_CASE("smp executor: the locks of another MadLocks do not hold it up", "[actions][smp]") {
  ibw::fabric::MadLocks mad, other;
  SmpExecutor exec(mad, kNoCa, 1, 50);
  std::lock_guard<std::mutex> smp(other.smp);
  std::lock_guard<std::mutex> umad(other.umad);
  auto read = read_async(exec);
  REQUIRE(read.wait_for(30s) == std::future_status::ready);
  CHECK_THROWS_WITH(read.get(), Catch::Contains("cannot open the local port"));
}

}  // namespace smp_executor_test
