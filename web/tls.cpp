// TlsConfig (web/tls.h): the only OpenSSL translation unit of ibw_web besides the server's
// stream code (web/server_connection.h and its pieces).
#include "web/tls.h"

#include <fcntl.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>

#include "fabric/diagnostics.h"

namespace ibw::web {
namespace tls_detail {

// TLS 1.2 suites: forward secrecy (ECDHE) and AEAD only. TLS 1.3 keeps OpenSSL's defaults.
constexpr const char* kTls12Ciphers = "ECDHE+AESGCM:ECDHE+CHACHA20";
constexpr size_t kMaxPemBytes = 1 << 20;

struct BioFree {
  void operator()(BIO* b) const { BIO_free(b); }
};
struct X509Free {
  void operator()(X509* x) const { X509_free(x); }
};
struct PkeyFree {
  void operator()(EVP_PKEY* k) const { EVP_PKEY_free(k); }
};
using BioPtr = std::unique_ptr<BIO, BioFree>;
using X509Ptr = std::unique_ptr<X509, X509Free>;
using PkeyPtr = std::unique_ptr<EVP_PKEY, PkeyFree>;

// Never asks for a passphrase (OpenSSL's default would prompt on the terminal).
int no_passphrase(char*, int, int, void*) {
  return -1;
}

// The reason of the last queued OpenSSL error ("no start line"), clearing the queue.
std::string openssl_reason() {
  unsigned long last = 0;
  while (unsigned long e = ERR_get_error()) last = e;
  const char* reason = last ? ERR_reason_error_string(last) : nullptr;
  return reason ? reason : "unknown error";
}

// The whole file, or false with *error set ("/etc/x.pem: Permission denied"). A `secret`
// (the private key) must be a regular file that others cannot read and group and others
// cannot write; group read only for a root-owned key (Debian's root:ssl-cert 0640); this
// is checked on the opened descriptor, so the file read is the file checked, and the read
// buffer is wiped. A certificate may also come from a pipe (/dev/fd/N).
bool read_pem(const std::string& path, std::string* out, std::string* error, bool secret) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);  // a FIFO must not block
  if (fd < 0) {
    *error = path + ": " + std::strerror(errno);
    return false;
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0)
    *error = path + ": " + std::strerror(errno);
  else if (secret && !S_ISREG(st.st_mode))
    *error = path + ": not a regular file";
  else if (secret && (st.st_mode & (S_IWGRP | S_IROTH | S_IWOTH)))
    *error = path +
             ": group or other users may read or write it (chmod 600; a private key is a "
             "secret)";
  else if (secret && (st.st_mode & S_IRGRP) && st.st_uid != 0)
    *error = path +
             ": its group may read it, which is allowed only for a key owned by root (as "
             "Debian's root:ssl-cert 0640 keys); chmod 600";
  else if (S_ISREG(st.st_mode) && st.st_size > static_cast<off_t>(kMaxPemBytes))
    *error = path + ": over 1 MiB: not a PEM file";
  if (!error->empty()) {
    ::close(fd);
    return false;
  }
  out->reserve(static_cast<size_t>(st.st_size) + 1);  // no reallocation leaving copies behind
  char buf[4096];
  ssize_t n = 0;
  while (out->size() <= kMaxPemBytes) {
    n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    if (secret && out->size() + static_cast<size_t>(n) > out->capacity()) {
      *error = path + ": changed while being read";  // a reallocation would leave a copy
      break;
    }
    out->append(buf, static_cast<size_t>(n));
  }
  if (n < 0 && error->empty()) *error = path + ": " + std::strerror(errno);
  OPENSSL_cleanse(buf, sizeof buf);
  ::close(fd);
  if (error->empty() && out->size() > kMaxPemBytes) *error = path + ": over 1 MiB: not a PEM file";
  return error->empty();
}

BioPtr memory_bio(const std::string& text) {
  return BioPtr(BIO_new_mem_buf(text.data(), static_cast<int>(text.size())));
}

std::string subject_of(X509* cert) {
  BioPtr out(BIO_new(BIO_s_mem()));
  if (!out || X509_NAME_print_ex(out.get(), X509_get_subject_name(cert), 0, XN_FLAG_RFC2253) < 0)
    return "";
  char* data = nullptr;
  long n = BIO_get_mem_data(out.get(), &data);
  return n > 0 ? std::string(data, static_cast<size_t>(n)) : "";
}

// Unix seconds of the certificate's notAfter, or 0.
int64_t not_after_of(X509* cert) {
  std::tm tm{};
  if (ASN1_TIME_to_tm(X509_get0_notAfter(cert), &tm) != 1) return 0;
  return static_cast<int64_t>(timegm(&tm));
}

std::string iso_utc(int64_t seconds) {
  std::time_t t = static_cast<std::time_t>(seconds);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

// TLS 1.2+, the cipher list, no compression or renegotiation, no passphrase prompts.
SSL_CTX* new_server_context() {
  SSL_CTX* ctx = SSL_CTX_new(TLS_server_method());
  if (!ctx) return nullptr;
  bool ok = SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION) == 1 &&
            SSL_CTX_set_cipher_list(ctx, kTls12Ciphers) == 1;
  SSL_CTX_set_options(ctx, SSL_OP_NO_COMPRESSION | SSL_OP_NO_RENEGOTIATION);
  SSL_CTX_set_default_passwd_cb(ctx, no_passphrase);
  if (!ok) {
    SSL_CTX_free(ctx);
    return nullptr;
  }
  return ctx;
}

}  // namespace tls_detail

TlsConfig TlsConfig::load(const TlsFiles& files) {
  using namespace tls_detail;
  fabric::DiagnosticSink sink(files.config_file);
  const std::string cert_field = "web.tls_cert", key_field = "web.tls_key";
  std::string cert_pem, key_pem, error;
  bool have_cert = read_pem(files.cert, &cert_pem, &error, /*secret=*/false);
  if (!have_cert) sink.add(files.cert_line, cert_field, error);
  error.clear();
  bool have_key = read_pem(files.key, &key_pem, &error, /*secret=*/true);
  if (!have_key) sink.add(files.key_line, key_field, error);

  TlsConfig out;
  ERR_clear_error();
  out.ctx_.reset(new_server_context(), SSL_CTX_free);
  if (!out.ctx_) {
    sink.add(0, "", "cannot set up TLS: " + openssl_reason());
    sink.throw_if_any();
  }
  X509Ptr leaf;
  if (have_cert) {
    auto bio = memory_bio(cert_pem);
    leaf.reset(PEM_read_bio_X509_AUX(bio.get(), nullptr, no_passphrase, nullptr));
    if (!leaf) {
      sink.add(files.cert_line, cert_field,
               files.cert + ": no PEM certificate (" + openssl_reason() + ")");
    } else if (SSL_CTX_use_certificate(out.ctx_.get(), leaf.get()) != 1) {  // a weak key
      sink.add(files.cert_line, cert_field,
               files.cert + ": unusable certificate (" + openssl_reason() + ")");
      leaf.reset();
    }
    while (leaf) {  // intermediates, until the end of the file
      X509* extra = PEM_read_bio_X509(bio.get(), nullptr, no_passphrase, nullptr);
      if (!extra) break;
      if (SSL_CTX_add0_chain_cert(out.ctx_.get(), extra) != 1) {
        X509_free(extra);
        sink.add(files.cert_line, cert_field,
                 files.cert + ": bad chain certificate (" + openssl_reason() + ")");
        break;
      }
    }
    ERR_clear_error();  // the end of the file reads as "no start line"
  }
  PkeyPtr key;
  if (have_key) {
    auto bio = memory_bio(key_pem);
    key.reset(PEM_read_bio_PrivateKey(bio.get(), nullptr, no_passphrase, nullptr));
    bool encrypted = key_pem.find("ENCRYPTED") != std::string::npos;
    if (!key)
      sink.add(files.key_line, key_field,
               files.key + (encrypted ? ": the key is encrypted; the daemon cannot ask for a "
                                        "passphrase (decrypt it: openssl pkey -in KEY -out NEW)"
                                      : ": no PEM private key (" + openssl_reason() + ")"));
  }
  OPENSSL_cleanse(key_pem.data(), key_pem.size());
  if (leaf && key) {
    if (X509_check_private_key(leaf.get(), key.get()) != 1)
      sink.add(files.key_line, key_field,
               files.key + ": the private key does not match the certificate in " + files.cert);
    else if (SSL_CTX_use_PrivateKey(out.ctx_.get(), key.get()) != 1 ||
             SSL_CTX_check_private_key(out.ctx_.get()) != 1)
      sink.add(files.key_line, key_field, files.key + ": unusable key (" + openssl_reason() + ")");
  }
  ERR_clear_error();
  sink.throw_if_any();
  out.subject_ = subject_of(leaf.get());
  out.not_after_s_ = not_after_of(leaf.get());
  out.not_after_ = iso_utc(out.not_after_s_);
  return out;
}

bool TlsConfig::expired() const {
  return not_after_s_ > 0 && static_cast<int64_t>(std::time(nullptr)) > not_after_s_;
}

}  // namespace ibw::web
