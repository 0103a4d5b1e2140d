#include "store/pg_db.h"

#include <charconv>
#include <cstdlib>

namespace ibw::store::pg_detail {

namespace pg_db_detail {

void silent_notice(void* /*arg*/, const PGresult* /*res*/) {}

// The first line of a statement, shortened: what failed, for messages.
std::string sql_head(const std::string& sql) {
  std::string s = sql.substr(0, sql.find('\n'));
  if (s.size() > 80) s = s.substr(0, 77) + "...";
  return s;
}

std::string trimmed(const char* msg) {
  std::string s = msg ? msg : "";
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

}  // namespace pg_db_detail

using namespace pg_db_detail;

std::string valid_utf8(std::string_view v) {
  std::string out;
  size_t i = 0, n = v.size();
  auto cont = [&](size_t k) { return k < n && (static_cast<unsigned char>(v[k]) & 0xC0) == 0x80; };
  bool clean = true;
  while (i < n) {
    unsigned char c = static_cast<unsigned char>(v[i]);
    size_t len = c < 0x80           ? 1
                 : (c >> 5) == 0x6  ? 2
                 : (c >> 4) == 0xE  ? 3
                 : (c >> 3) == 0x1E ? 4
                                    : 0;
    bool ok = len != 0 && c != 0 && (len < 2 || c >= 0xC2);
    for (size_t k = 1; ok && k < len; ++k) ok = cont(i + k);
    if (ok && len == 3) {  // no overlong forms, no surrogates
      unsigned char d = static_cast<unsigned char>(v[i + 1]);
      ok = !(c == 0xE0 && d < 0xA0) && !(c == 0xED && d >= 0xA0);
    }
    if (ok && len == 4) {
      unsigned char d = static_cast<unsigned char>(v[i + 1]);
      ok = !(c == 0xF0 && d < 0x90) && !(c == 0xF4 && d >= 0x90) && c <= 0xF4;
    }
    if (ok) {
      if (!clean) out.append(v.substr(i, len));
      i += len;
      continue;
    }
    if (clean) out.assign(v.substr(0, i)), clean = false;
    out += "\xEF\xBF\xBD";  // U+FFFD for each byte that is not UTF-8 (and for NUL)
    ++i;
  }
  return clean ? std::string(v) : out;
}

// ---- formats ----

void append_i64(std::string& out, int64_t v) {
  char buf[24];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, end);
}

std::string mask_password(const std::string& url) {
  std::string s = url;
  // URI: scheme://user:password@host
  if (auto scheme = s.find("://"); scheme != std::string::npos) {
    const size_t start = scheme + 3;
    const size_t at = s.find('@', start);
    const size_t slash = s.find('/', start);
    if (at != std::string::npos && (slash == std::string::npos || at < slash)) {
      const size_t colon = s.find(':', start);
      if (colon != std::string::npos && colon < at) s.replace(colon + 1, at - colon - 1, "***");
    }
  }
  // key=value form, or a URI query parameter
  for (size_t pos = 0; (pos = s.find("password=", pos)) != std::string::npos;) {
    const size_t v = pos + 9;
    size_t end = s.find_first_of(" &", v);
    if (end == std::string::npos) end = s.size();
    s.replace(v, end - v, "***");
    pos = v + 3;
  }
  return s;
}

namespace pg_db_detail {

// Splits "{a,b,c}" (no quotes or nesting: numbers only) and hands each element to f.
template <typename F>
void split_array(std::string_view text, size_t n, std::string_view what, F f) {
  if (text.size() < 2 || text.front() != '{' || text.back() != '}')
    throw StoreError(std::string(what) + ": not an array: " + std::string(text.substr(0, 40)));
  text = text.substr(1, text.size() - 2);
  size_t i = 0;
  while (!text.empty()) {
    const size_t comma = text.find(',');
    const std::string_view e = text.substr(0, comma);
    if (i >= n)
      throw StoreError(std::string(what) + ": more than " + std::to_string(n) + " values");
    if (!f(i, e)) throw StoreError(std::string(what) + ": bad value '" + std::string(e) + "'");
    ++i;
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
}

}  // namespace pg_db_detail

void parse_i64_array(std::string_view text, int64_t* out, size_t n, std::string_view what) {
  for (size_t i = 0; i < n; ++i) out[i] = 0;
  split_array(text, n, what, [&](size_t i, std::string_view e) {
    auto [p, ec] = std::from_chars(e.data(), e.data() + e.size(), out[i]);
    return ec == std::errc() && p == e.data() + e.size();
  });
}

void parse_f64_array(std::string_view text, double* out, size_t n, std::string_view what) {
  for (size_t i = 0; i < n; ++i) out[i] = 0;
  split_array(text, n, what, [&](size_t i, std::string_view e) {
    auto [p, ec] = std::from_chars(e.data(), e.data() + e.size(), out[i]);  // inf, nan too
    return ec == std::errc() && p == e.data() + e.size();
  });
}

// ---- Params ----

Params& Params::text(std::string_view v) {
  values_.push_back(valid_utf8(v));
  null_.push_back(false);
  return *this;
}

Params& Params::i64(int64_t v) {
  std::string s;
  append_i64(s, v);
  values_.push_back(std::move(s));
  null_.push_back(false);
  return *this;
}

Params& Params::null() {
  values_.emplace_back();
  null_.push_back(true);
  return *this;
}

Params& Params::binary(std::string v) {
  values_.push_back(std::move(v));
  null_.push_back(false);
  binary_.resize(values_.size(), false);
  binary_.back() = true;
  any_binary_ = true;
  return *this;
}

std::vector<const char*> Params::pointers() const {
  std::vector<const char*> p(values_.size());
  for (size_t i = 0; i < values_.size(); ++i) p[i] = null_[i] ? nullptr : values_[i].c_str();
  return p;
}

std::vector<int> Params::lengths() const {
  std::vector<int> l(values_.size());
  for (size_t i = 0; i < values_.size(); ++i) l[i] = static_cast<int>(values_[i].size());
  return l;
}

std::vector<int> Params::formats() const {
  std::vector<int> f(values_.size(), 0);
  for (size_t i = 0; i < binary_.size(); ++i) f[i] = binary_[i] ? 1 : 0;
  return f;
}

// ---- ArrayText ----

void ArrayText::sep() {
  if (!first_) s_ += ',';
  first_ = false;
}

void ArrayText::i64(int64_t v) {
  sep();
  append_i64(s_, v);
}

void ArrayText::text(std::string_view v) {
  sep();
  s_ += '"';
  for (char c : v) {
    if (c == '"' || c == '\\') s_ += '\\';
    s_ += c;
  }
  s_ += '"';
}

void ArrayText::null() {
  sep();
  s_ += "NULL";
}

std::string ArrayText::take() {
  s_ += '}';
  std::string out = std::move(s_);
  s_ = "{";
  first_ = true;
  return out;
}

// ---- Result ----

int64_t Result::affected() const {
  const char* n = PQcmdTuples(r_.get());
  return n && *n ? std::strtoll(n, nullptr, 10) : 0;
}

std::string_view Result::text(int row, int col) const {
  return {PQgetvalue(r_.get(), row, col), static_cast<size_t>(PQgetlength(r_.get(), row, col))};
}

int64_t Result::i64(int row, int col) const {
  const std::string_view t = text(row, col);
  int64_t v = 0;
  auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (ec != std::errc() || p != t.data() + t.size()) {
    if (t.empty()) return 0;
    throw StoreError("column " + std::string(PQfname(r_.get(), col)) +
                     ": not an integer: " + std::string(t));
  }
  return v;
}

std::string Result::bytea(int row, int col) const {
  const std::string_view t = text(row, col);
  auto bad = [&] {
    return StoreError("column " + std::string(PQfname(r_.get(), col)) + ": not bytea hex output");
  };
  if (t.empty()) return {};  // NULL
  if (t.size() % 2 != 0 || t.substr(0, 2) != "\\x") throw bad();
  auto nibble = [&](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    throw bad();
  };
  std::string out((t.size() - 2) / 2, '\0');
  for (size_t i = 0; i < out.size(); ++i)
    out[i] = static_cast<char>(nibble(t[2 + 2 * i]) << 4 | nibble(t[3 + 2 * i]));
  return out;
}

// ---- Db ----

Db::Db(const std::string& url, const std::string& password) : server_(mask_password(url)) {
  // Earlier keywords are defaults the expanded url overrides; the password comes last.
  std::vector<const char*> keys = {"connect_timeout", "fallback_application_name", "dbname"};
  std::vector<const char*> values = {"10", "ibwarden", url.c_str()};
  if (!password.empty()) {
    keys.push_back("password");
    values.push_back(password.c_str());
  }
  keys.push_back(nullptr);
  values.push_back(nullptr);
  conn_ = PQconnectdbParams(keys.data(), values.data(), /*expand_dbname=*/1);
  if (!conn_) throw DbError("store " + server_ + ": cannot connect: out of memory", "");
  if (PQstatus(conn_) != CONNECTION_OK) {
    const std::string msg = trimmed(PQerrorMessage(conn_));
    PQfinish(conn_);
    conn_ = nullptr;
    throw DbError("store " + server_ + ": cannot connect: " + msg, "");
  }
  PQsetNoticeReceiver(conn_, silent_notice, nullptr);
}

Db::~Db() {
  if (conn_) PQfinish(conn_);
}

void Db::fail(const std::string& what, const std::string& detail) const {
  throw DbError("store " + server_ + ": " + what + ": " + detail, "");
}

Result Db::check(PGresult* r, const std::string& sql) {
  const ExecStatusType st = r ? PQresultStatus(r) : PGRES_FATAL_ERROR;
  if (st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK) return Result(r);
  std::string msg = trimmed(r ? PQresultErrorMessage(r) : PQerrorMessage(conn_));
  if (msg.empty()) msg = trimmed(PQerrorMessage(conn_));
  const char* state = r ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : nullptr;
  std::string sqlstate = state ? state : "";
  if (r) PQclear(r);
  throw DbError("store " + server_ + ": " + sql_head(sql) + ": " + msg, std::move(sqlstate));
}

void Db::set_session(const std::string& sql) {
  exec(sql);
  session_.push_back(sql);
}

void Db::revive() {
  if (PQstatus(conn_) == CONNECTION_OK) return;
  PQreset(conn_);
  if (PQstatus(conn_) != CONNECTION_OK)
    throw DbError("store " + server_ +
                      ": connection lost and not reopened: " + trimmed(PQerrorMessage(conn_)),
                  "");
  prepared_.clear();  // the server forgot them with the old session
  for (const auto& s : session_) check(PQexec(conn_, s.c_str()), s);
}

Result Db::exec(const std::string& sql) {
  finish();
  if (tx_depth_ == 0) revive();
  return check(PQexec(conn_, sql.c_str()), sql);
}

const std::string& Db::prepared(const std::string& sql) {
  auto it = prepared_.find(sql);
  if (it == prepared_.end()) {
    std::string name = "ibw" + std::to_string(prepared_.size() + 1);
    check(PQprepare(conn_, name.c_str(), sql.c_str(), 0, nullptr), sql);
    it = prepared_.emplace(sql, std::move(name)).first;
  }
  return it->second;
}

Result Db::exec(const std::string& sql, const Params& params, bool binary_result) {
  finish();
  if (tx_depth_ == 0) revive();
  const std::string& name = prepared(sql);
  const std::vector<const char*> p = params.pointers();
  if (!params.any_binary())
    return check(PQexecPrepared(conn_, name.c_str(), static_cast<int>(p.size()), p.data(), nullptr,
                                nullptr, binary_result ? 1 : 0),
                 sql);
  const std::vector<int> lengths = params.lengths(), formats = params.formats();
  return check(PQexecPrepared(conn_, name.c_str(), static_cast<int>(p.size()), p.data(),
                              lengths.data(), formats.data(), binary_result ? 1 : 0),
               sql);
}

}  // namespace ibw::store::pg_detail
