// TLS of the web server (web.tls_cert + web.tls_key): the certificate and private key, loaded
// and checked once with the configuration (startup, check-config, SIGHUP reload), so a bad
// file fails there and not at the first connection. Only web/tls.cpp includes OpenSSL; the
// server (web/server.cpp) wraps the context this builds.
//
// TlsConfig::load() reports every problem at once as a fabric::InputError whose diagnostics
// point into the configuration file: "ibwarden.yaml:80: web.tls_key: message":
//  - either file cannot be read (missing, permission denied);
//  - the key file is not a regular file, or its group or other users may read or write it
//    (chmod 600, like the tokens file: a private key is a secret);
//  - the certificate file holds no PEM certificate (the server's first, then any intermediate
//    ones, which are sent along);
//  - the key file holds no unencrypted PEM private key (passphrases are not supported: the
//    daemon starts unattended), or one that does not match the certificate.
// An expired certificate is not an error (expired() lets the caller warn).
//
// The context speaks TLS 1.2 and 1.3 only; TLS 1.2 with ECDHE key exchange and AEAD ciphers
// (AES-GCM, ChaCha20-Poly1305) only; TLS 1.3 with OpenSSL's default suites; no compression and
// no renegotiation; client certificates are not asked for (tokens authenticate).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

struct ssl_ctx_st;  // OpenSSL's SSL_CTX

namespace ibw::web {

// Where the files are, and where they were configured (for messages).
struct TlsFiles {
  std::string cert;         // PEM certificate chain, the server's first
  std::string key;          // PEM private key, unencrypted, mode 0600 or stricter
  std::string config_file;  // the configuration naming them
  int cert_line = 0;        // line of web.tls_cert in it (0: not known)
  int key_line = 0;         // line of web.tls_key
};

// A checked, ready server context. Copies share it.
class TlsConfig {
 public:
  // Reads and checks both files (see above); throws fabric::InputError.
  static TlsConfig load(const TlsFiles& files);

  // The SSL_CTX, shared: a user keeping it past this object's life takes a reference
  // (SSL_CTX_up_ref).
  ssl_ctx_st* native() const { return ctx_.get(); }
  const std::string& subject() const { return subject_; }      // "CN=ibwarden.example.com"
  const std::string& not_after() const { return not_after_; }  // "2027-01-15T08:00:00Z"
  bool expired() const;                                        // now after not_after

 private:
  std::shared_ptr<ssl_ctx_st> ctx_;
  std::string subject_;
  std::string not_after_;
  int64_t not_after_s_ = 0;  // Unix seconds
};

}  // namespace ibw::web
