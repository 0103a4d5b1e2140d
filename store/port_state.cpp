// The partition blobs of table port_state (store/port_state.h): building, merging, reading.
#include "store/port_state.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <tuple>

#include "fabric/prefetch.h"
#include "store/codec_io.h"
#include "store/sample_codec.h"
#include "store/sample_tables.h"

namespace ibw::store::port_state {

namespace port_state_detail {

using codec_io::put_varint;

constexpr char kVersion = 1;

void put_key(std::string& out, uint64_t guid, int port) {
  char buf[8 + codec_io::kMaxVarint];
  codec_io::put_le64(buf, guid);
  out.append(buf, static_cast<size_t>(put_varint(buf + 8, codec_io::zigzag(port)) - buf));
}

std::string where(int part) {
  return "table port_state, partition " + std::to_string(part);
}

[[noreturn]] void malformed(int part, const std::string& what) {
  throw StoreError(where(part) + ": " + what);
}

// Walks the entries of one partition's blob, checking their framing and order.
class Cursor {
 public:
  Cursor(int part, std::string_view blob) : where_(where(part)), r_(blob, where_) {
    if (blob.empty()) return;
    const uint8_t v = r_.byte();
    if (v != kVersion) r_.fail("unknown encoding version " + std::to_string(v));
  }
  // The next entry; false at the end. raw: the whole entry (key, length and state).
  bool next(uint64_t& guid, int& port, std::string_view& state, std::string_view& raw) {
    if (r_.done()) return false;
    const std::string_view g = r_.bytes(8);
    guid = codec_io::le64(g);
    port = static_cast<int>(codec_io::unzigzag(r_.varint()));
    state = r_.bytes(r_.varint());
    raw = std::string_view(g.data(), static_cast<size_t>(state.data() + state.size() - g.data()));
    if (any_ && std::tie(guid, port) <= std::tie(last_guid_, last_port_))
      r_.fail("entries out of order");
    any_ = true, last_guid_ = guid, last_port_ = port;
    return true;
  }

 private:
  std::string where_;
  codec_io::Reader r_;
  bool any_ = false;
  uint64_t last_guid_ = 0;
  int last_port_ = 0;
};

std::string port_name(uint64_t guid, int port) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "0x%016" PRIx64 ":%d", guid, port);
  return buf;
}

}  // namespace port_state_detail

using namespace port_state_detail;

int part_of(uint64_t node_guid, int port) {
  return sample_tables::part_of(node_guid, port);
}

void Updates::push(uint64_t guid, int port, size_t off) {
  parts_[part_of(guid, port)].push_back(Entry{guid, port, count_++, static_cast<uint32_t>(off),
                                              static_cast<uint32_t>(arena_.size() - off)});
}

void Updates::add(const PortRecord& p) {
  const size_t off = arena_.size();
  sample_codec::append_port_state(arena_, p);
  push(p.node_guid, p.port, off);
}

void Updates::add(const ingest::CounterDelta& d) {
  set_counters(scratch_, d);
  const size_t off = arena_.size();
  sample_codec::append_port_state(arena_, scratch_);
  push(d.sample.node_guid, d.sample.port, off);
}

size_t Updates::bytes() const {
  // Each state: its key (8 bytes of GUID, the port's varint), its length's varint, its bytes.
  return arena_.size() + count_ * (8 + 2 * codec_io::kMaxVarint);
}

void Updates::reserve(size_t n) {
  if (n < 4 * kParts) return;  // small writes (events, a link change): grow as needed
  arena_.reserve(arena_.size() + n * 160);
  for (auto& p : parts_) p.reserve(p.size() + n / kParts + n / (4 * kParts));
}

std::vector<int> Updates::parts() const {
  std::vector<int> out;
  for (int p = 0; p < kParts; ++p)
    if (!parts_[p].empty()) out.push_back(p);
  return out;
}

std::string Updates::merge(int part, std::string_view stored) {
  std::string out;
  merge_into(part, stored, out);
  return out;
}

void Updates::merge_into(int part, std::string_view stored, std::string& out) {
  std::vector<Entry>& v = parts_[part];
  std::sort(v.begin(), v.end(), [](const Entry& a, const Entry& b) {
    return std::tie(a.guid, a.port, a.seq) < std::tie(b.guid, b.port, b.seq);
  });
  // The last state added of each port.
  size_t n = 0, bytes = 0;
  for (size_t i = 0; i < v.size(); ++i) {
    if (i + 1 < v.size() && v[i + 1].guid == v[i].guid && v[i + 1].port == v[i].port) continue;
    bytes += 16 + v[i].len;
    v[n++] = v[i];
  }
  v.resize(n);
  out.reserve(out.size() + stored.size() + bytes + 1);
  out.push_back(kVersion);
  // The new states lie in the arena in batch order, a partition's one in 256 of them: the
  // ones a few ahead are asked for while each is copied (else a wait on memory each).
  constexpr size_t kAhead = 8;
  auto put_new = [&](size_t k) {
    if (k + kAhead < n)
      fabric::prefetch_range(arena_.data() + v[k + kAhead].off, v[k + kAhead].len);
    const Entry& e = v[k];
    put_key(out, e.guid, e.port);
    put_varint(out, e.len);
    out.append(arena_, e.off, e.len);
  };
  Cursor c(part, stored);
  uint64_t guid = 0;
  int port = 0;
  std::string_view state, raw;
  size_t i = 0;
  while (c.next(guid, port, state, raw)) {
    while (i < n && std::tie(v[i].guid, v[i].port) < std::tie(guid, port)) put_new(i++);
    if (i < n && v[i].guid == guid && v[i].port == port)
      put_new(i++);
    else
      out.append(raw);
  }
  while (i < n) put_new(i++);
}

void for_each(int part, std::string_view blob,
              const std::function<void(uint64_t, int, std::string_view)>& found) {
  Cursor c(part, blob);
  uint64_t guid = 0;
  int port = 0;
  std::string_view state, raw;
  while (c.next(guid, port, state, raw)) found(guid, port, state);
}

void fill(std::vector<PortRecord>& records, const BlobSource& blob_of) {
  struct Want {
    uint64_t guid;
    int port;
    size_t index;
  };
  std::vector<std::vector<Want>> wants(kParts);
  for (size_t i = 0; i < records.size(); ++i)
    wants[static_cast<size_t>(part_of(records[i].node_guid, records[i].port))].push_back(
        Want{records[i].node_guid, records[i].port, i});
  std::vector<int> parts;
  for (int p = 0; p < kParts; ++p) {
    auto& w = wants[static_cast<size_t>(p)];
    if (w.empty()) continue;
    parts.push_back(p);
    std::sort(w.begin(), w.end(), [](const Want& a, const Want& b) {
      return std::tie(a.guid, a.port) < std::tie(b.guid, b.port);
    });
  }
  if (parts.empty()) return;
  blob_of(parts, [&](int part, std::string_view blob) {
    const auto& w = wants[static_cast<size_t>(part)];
    size_t j = 0;
    for_each(part, blob, [&](uint64_t guid, int port, std::string_view state) {
      while (j < w.size() && std::tie(w[j].guid, w[j].port) < std::tie(guid, port)) ++j;
      for (; j < w.size() && w[j].guid == guid && w[j].port == port; ++j) {
        try {
          sample_codec::decode_port_state(state, records[w[j].index]);
        } catch (const StoreError& e) {
          malformed(part, "port " + port_name(guid, port) + ": " + e.what());
        }
      }
    });
  });
}

}  // namespace ibw::store::port_state
