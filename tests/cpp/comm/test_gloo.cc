// The Gloo backend and the rendezvous store, with ranks as threads of this process (each its
// own store client, transport device and context, over the loopback address).
#include <gtest/gtest.h>
#include <httplib.h>

#include <cstdint>

#include <atomic>
#include <exception>
#include <thread>

#include "collective_checks.h"
#include "comm/gloo_comm.h"
#include "comm/store.h"

namespace mycel {
namespace {

using namespace std::chrono_literals;

// Runs f(rank's communicator) on n ranks in threads; rethrows the first rank's exception.
template <class F>
void on_ranks(int n, std::chrono::milliseconds timeout, F f) {
  StoreServer server("127.0.0.1", 0);
  std::vector<std::exception_ptr> errors(n);
  std::vector<std::thread> threads;
  for (int r = 0; r < n; ++r) {
    threads.emplace_back([&, r] {
      try {
        HttpStore store("127.0.0.1", server.port(), 30s);
        auto c = connect_gloo(make_gloo_device("127.0.0.1"), store, "test", r, n, timeout);
        f(*c);
      } catch (...) {
        errors[r] = std::current_exception();
      }
    });
  }
  for (auto& t : threads) t.join();
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
}

class GlooRanks : public ::testing::TestWithParam<int> {};

TEST_P(GlooRanks, EveryCollectiveMatchesItsDefinition) {
  on_ranks(GetParam(), 60s, [](Communicator& c) {
    EXPECT_EQ(c.backend(), "gloo");
    EXPECT_EQ(c.group(), "test");
    test::check_collectives(c);
  });
}

INSTANTIATE_TEST_SUITE_P(Comm, GlooRanks, ::testing::Values(1, 2, 3, 4));

// Rank 1 stays connected but never joins the all-reduce: rank 0's call ends with a timeout
// error (rank 1 waits for it, bounded, then leaves).
TEST(Gloo, APeerThatNeverArrivesIsATimeoutErrorNamingTheOpAndGroup) {
  std::atomic<bool> done{false};
  try {
    on_ranks(2, 400ms, [&](Communicator& c) {
      if (c.rank() == 1) {
        for (int i = 0; i < 600 && !done; ++i) std::this_thread::sleep_for(50ms);
        return;
      }
      float x = 1;
      try {
        c.all_reduce(&x, 1, DType::Float32, ReduceOp::Sum);
      } catch (...) {
        done = true;
        throw;
      }
      done = true;
    });
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Runtime);
    std::string m = e.what();
    EXPECT_NE(m.find("AllReduce on group 'test' (rank 0 of 2, gloo, timeout 0.4 s)"),
              std::string::npos)
        << m;
  }
}

// Rank 1 leaves the group after a barrier: rank 0's next collective fails naming it.
TEST(Gloo, APeerThatDiedIsAnErrorNotAHang) {
  try {
    on_ranks(2, 30s, [&](Communicator& c) {
      c.barrier();
      if (c.rank() == 1) return;  // its context closes
      std::this_thread::sleep_for(100ms);
      double x = 1;
      c.all_reduce(&x, 1, DType::Float64, ReduceOp::Sum);
    });
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("AllReduce on group 'test'"), std::string::npos)
        << e.what();
  }
}

TEST(Store, SetGetAddAndAKeyThatNeverComes) {
  StoreServer server("127.0.0.1", 0);
  HttpStore s("127.0.0.1", server.port(), 10s);
  s.set("a", std::string("x\0y", 3));
  EXPECT_EQ(s.get("a", 1s), std::string("x\0y", 3));  // binary values
  EXPECT_EQ(s.add("n", 2), 2);
  EXPECT_EQ(s.add("n", 3), 5);
  try {
    s.get("never", 300ms);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'never'"), std::string::npos) << e.what();
  }
}

// Requests are network input: adding to a value that is not a counter, or past int64, is
// refused (HTTP 400, a RuntimeError at the client), never a crash of the server.
TEST(Store, AddToANonCounterOrPastInt64IsRefused) {
  StoreServer server("127.0.0.1", 0);
  HttpStore s("127.0.0.1", server.port(), 10s);
  s.set("text", "abc");
  EXPECT_THROW(s.add("text", 1), Error);
  EXPECT_EQ(s.add("big", INT64_MAX), INT64_MAX);
  EXPECT_THROW(s.add("big", 1), Error);
  EXPECT_EQ(s.add("big", -1), INT64_MAX - 1);  // the store still serves
}

// A server whose /add reply is not an integer (network input): the client's add is a mycel
// Error naming the store, not a std::invalid_argument from std::stoll.
TEST(Store, AReplyThatIsNotAnIntegerIsRefused) {
  httplib::Server fake;
  fake.Get("/get", [](const httplib::Request&, httplib::Response& res) { res.status = 404; });
  fake.Post("/add", [](const httplib::Request&, httplib::Response& res) {
    res.set_content("12abc", "text/plain");
  });
  const int port = fake.bind_to_any_port("127.0.0.1");
  ASSERT_GT(port, 0);
  std::thread serve([&] { fake.listen_after_bind(); });
  {
    HttpStore s("127.0.0.1", port, 10s);
    EXPECT_THROW(s.add("k", 1), Error);
  }
  fake.stop();
  serve.join();
}

TEST(Store, AGetWaitsForALaterSet) {
  StoreServer server("127.0.0.1", 0);
  HttpStore a("127.0.0.1", server.port(), 10s), b("127.0.0.1", server.port(), 10s);
  std::thread t([&] {
    std::this_thread::sleep_for(50ms);
    b.set("late", "v");
  });
  EXPECT_EQ(a.get("late", 30s), "v");
  t.join();
}

TEST(Store, APortInUseIsAClearError) {
  StoreServer first("127.0.0.1", 0);
  try {
    StoreServer second("127.0.0.1", first.port());
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(std::to_string(first.port())), std::string::npos);
  }
}

TEST(Store, NoServerIsAClearErrorAfterTheConnectTimeout) {
  int port;
  {
    StoreServer gone("127.0.0.1", 0);
    port = gone.port();
  }
  EXPECT_THROW(HttpStore("127.0.0.1", port, 300ms), Error);
}

TEST(ReduceInto, BoolIsOrAndAndIntegersWrap) {
  bool a[2] = {true, false}, b[2] = {false, false}, o[2];
  reduce_into(DType::Bool, ReduceOp::Sum, o, a, b, 2);
  EXPECT_TRUE(o[0]);
  EXPECT_FALSE(o[1]);
  reduce_into(DType::Bool, ReduceOp::Prod, o, a, b, 2);
  EXPECT_FALSE(o[0]);
  uint8_t x = 200, y = 100, z;
  reduce_into(DType::UInt8, ReduceOp::Sum, &z, &x, &y, 1);
  EXPECT_EQ(z, 44);
  int16_t p = 300, q = 300, r;
  reduce_into(DType::Int16, ReduceOp::Prod, &r, &p, &q, 1);
  EXPECT_EQ(r, static_cast<int16_t>(90000));
}

}  // namespace
}  // namespace mycel
