#!/usr/bin/env bash
# Builds the .deb with scripts/package.sh and checks it as a Debian admin would:
# - metadata: name, version (= `ibwarden --version`), arch, Depends from dpkg-shlibdeps,
#   Recommends, maintainer scripts, conffiles;
# - the files: binary, /etc conffiles, unit, udev rule, gzipped man page, completion, docs,
#   and the manual (README.md and docs/ with its pictures; its links work where installed);
# - lintian: no errors (warnings are printed);
# - systemd-analyze verify on the unit: clean; systemd-analyze security is printed;
# - as root: dpkg -i (user, group, state directory, permissions, the shipped config validates),
#   an edited conffile survives a reinstall, dpkg --purge removes user, state and files.
# Usage: check_deb.sh BUILD_DIR
set -uo pipefail
BUILD_DIR=$(cd "$1" && pwd)
SRC=$(cd "$(dirname "$0")/../.." && pwd)
fails=0
ok() { echo "ok: $*"; }
bad() {
  echo "FAIL: $*"
  fails=$((fails + 1))
}
check() {  # check DESCRIPTION COMMAND...
  local what=$1
  shift
  if "$@"; then ok "$what"; else bad "$what"; fi
}

deb=$(BUILD_DIR=$BUILD_DIR bash "$SRC/scripts/package.sh" 2>"$BUILD_DIR/package-test.log" | tail -1)
if [[ -z $deb || ! -f $deb ]]; then
  tail -30 "$BUILD_DIR/package-test.log"
  echo "FAIL: scripts/package.sh wrote no package"
  exit 1
fi
version=$("$BUILD_DIR/cli/ibwarden" --version | awk '{print $2}')
arch=$(dpkg --print-architecture)
check "package at build/ibwarden_<version>_<arch>.deb ($deb)" \
  test "$(basename "$deb")" = "ibwarden_${version}_${arch}.deb"
field() { dpkg-deb -f "$deb" "$1"; }
check "Package: ibwarden" test "$(field Package)" = ibwarden
check "Version matches ibwarden --version ($version)" test "$(field Version)" = "$version"
depends=$(field Depends)
echo "Depends: $depends"
for lib in libc6 libstdc++6 libibumad3 libibmad5 libibnetdisc5 libsqlite3-0 libyaml-cpp \
  libcurl4 libssl3 libsystemd0 adduser; do
  check "Depends names $lib" grep -q "$lib" <<<"$depends"
done
check "Recommends infiniband-diags and opensm" \
  test "$(field Recommends)" = "infiniband-diags, opensm"

scratch=$(mktemp -d /tmp/ibw-deb.XXXXXX)
trap 'rm -rf "$scratch"' EXIT
dpkg-deb -x "$deb" "$scratch/root"
dpkg-deb -e "$deb" "$scratch/control"
for f in usr/bin/ibwarden etc/ibwarden/ibwarden.yaml etc/ibwarden/rules.yaml \
  lib/systemd/system/ibwarden.service lib/udev/rules.d/60-ibwarden-umad.rules \
  usr/share/man/man1/ibwarden.1.gz usr/share/bash-completion/completions/ibwarden \
  usr/share/doc/ibwarden/copyright usr/share/doc/ibwarden/changelog.gz \
  usr/share/doc/ibwarden/README.md usr/share/doc/ibwarden/examples/ibwarden.example.yaml \
  usr/share/doc/ibwarden/examples/ibwarden-alerts.yml \
  usr/share/doc/ibwarden/examples/ibwarden.json; do
  check "ships /$f" test -s "$scratch/root/$f"
done
# The manual `ibwarden --help` names: every page of docs/ with its pictures beside README.md,
# and its links work there (the README's docs/ links are rewritten for the flat folder).
manual=$scratch/root/usr/share/doc/ibwarden
for page in "$SRC"/docs/*.md "$SRC"/docs/img/*.png; do
  check "ships the manual's ${page#"$SRC/docs/"}" test -s "$manual/${page#"$SRC/docs/"}"
done
check "the installed manual's links work" python3 "$SRC/tests/docs/check_links.py" --installed "$manual"
check "ibwarden --help ends with the manual's path" \
  bash -c "'$BUILD_DIR/cli/ibwarden' --help | tail -1 | grep -q '/usr/share/doc/ibwarden/'"
check "conffiles lists both /etc files" \
  diff <(sort "$scratch/control/conffiles") \
  <(printf '/etc/ibwarden/ibwarden.yaml\n/etc/ibwarden/rules.yaml\n')
for s in postinst prerm postrm; do check "$s is executable" test -x "$scratch/control/$s"; done
check "the shipped config is dry-run" grep -Eq '^  mode: dry-run' \
  "$scratch/root/etc/ibwarden/ibwarden.yaml"
check "the shipped store is under /var/lib/ibwarden" grep -Eq '^  path: /var/lib/ibwarden/' \
  "$scratch/root/etc/ibwarden/ibwarden.yaml"
check "the shipped web listens on 127.0.0.1" grep -Eq '^  listen: 127\.0\.0\.1:' \
  "$scratch/root/etc/ibwarden/ibwarden.yaml"
check "the man page renders without warnings" \
  bash -c "zcat '$scratch/root/usr/share/man/man1/ibwarden.1.gz' | groff -man -Tutf8 -ww -z 2>&1 | \
           (! grep .)"
check "the binary is stripped" bash -c "! file -L '$scratch/root/usr/bin/ibwarden' | grep -q 'not stripped'"

# lintian: errors fail, warnings are shown.
lintian --allow-root --tag-display-limit 0 "$deb" >"$scratch/lintian.txt" 2>&1
cat "$scratch/lintian.txt"
check "lintian: no errors" bash -c "! grep -q '^E:' '$scratch/lintian.txt'"

unit="$scratch/root/lib/systemd/system/ibwarden.service"
check "unit: Type=notify, ExecReload=SIGHUP, user ibwarden" bash -c \
  "grep -qx 'Type=notify' '$unit' && grep -q '^ExecReload=/bin/kill -HUP \$MAINPID' '$unit' &&
   grep -qx 'User=ibwarden' '$unit'"
for k in ProtectSystem=strict StateDirectory=ibwarden NoNewPrivileges=yes PrivateTmp=yes \
  'RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6' CapabilityBoundingSet=CAP_NET_BIND_SERVICE; do
  check "unit: $k" grep -qx "$k" "$unit"
done

verify_unit() {  # systemd-analyze verify: prints nothing when the unit is clean
  local out
  out=$(SYSTEMD_LOG_LEVEL=notice systemd-analyze verify "$@" 2>&1)
  echo "systemd-analyze verify: ${out:-clean}"
  [[ -z $out ]]
}

if [[ $(id -u) -ne 0 ]]; then
  echo "note: not root: the install, reinstall and purge checks need root (dpkg -i); skipped"
  echo "note: systemd-analyze verify needs /usr/bin/ibwarden installed; skipped"
else
  if dpkg-query -W -f='${Status}' ibwarden 2>/dev/null | grep -q installed; then
    echo "FAIL: an ibwarden package is already installed here; not touching it"
    exit 1
  fi
  trap 'dpkg --purge ibwarden >/dev/null 2>&1; rm -rf "$scratch"' EXIT
  check "dpkg -i installs it" dpkg -i "$deb"
  check "ibwarden system user and group" bash -c \
    "getent passwd ibwarden | grep -q ':/var/lib/ibwarden:/usr/sbin/nologin' && getent group ibwarden"
  check "state directory ibwarden:ibwarden 0750" \
    test "$(stat -c '%U:%G %a' /var/lib/ibwarden)" = "ibwarden:ibwarden 750"
  check "config root:ibwarden 0640" \
    test "$(stat -c '%U:%G %a' /etc/ibwarden/ibwarden.yaml)" = "root:ibwarden 640"
  check "dpkg knows both conffiles" bash -c \
    "test \$(dpkg-query -W -f='\${Conffiles}\n' ibwarden | grep -c '^ /etc/ibwarden/') -eq 2"
  check "installed ibwarden --version" test "$(/usr/bin/ibwarden --version)" = "ibwarden $version"
  # The shipped configuration validates (its rules file included), with the real paths.
  check "shipped config passes check-config" \
    /usr/bin/ibwarden check-config --config /etc/ibwarden/ibwarden.yaml
  check "systemd-analyze verify is clean" verify_unit /lib/systemd/system/ibwarden.service
  systemd-analyze security --offline=yes /lib/systemd/system/ibwarden.service 2>/dev/null |
    tail -1 | sed 's/^/systemd-analyze security: /'
  check "bash completion loads and completes commands" bash -c \
    "source /usr/share/bash-completion/completions/ibwarden && COMP_WORDS=(ibwarden check-c) &&
     COMP_CWORD=1 && _ibwarden ibwarden check-c ibwarden && [[ \${COMPREPLY[*]} == check-config ]]"
  check "man ibwarden finds the page" bash -c "man -w ibwarden | grep -q '/man1/ibwarden.1.gz'"
  # The installed daemon as the unit runs it: user ibwarden, the shipped config, notify.
  python3 "$(dirname "$0")/run_installed.py"
  rc=$?
  if ((rc == 77)); then echo "note: installed-daemon run skipped (see above)"; elif ((rc != 0)); then
    bad "the installed daemon runs as ibwarden with the shipped config"
  else ok "the installed daemon runs as ibwarden with the shipped config"; fi
  # An operator's edit of a conffile survives a reinstall (upgrade path).
  echo "# local edit" >>/etc/ibwarden/rules.yaml
  check "reinstall keeps the edited conffile" bash -c \
    "dpkg -i --force-confold '$deb' >/dev/null && tail -1 /etc/ibwarden/rules.yaml | grep -qx '# local edit'"
  check "dpkg --purge removes it" dpkg --purge ibwarden
  check "purge removed the user, the state and the config" bash -c \
    "! getent passwd ibwarden && ! test -e /var/lib/ibwarden && ! test -e /etc/ibwarden &&
     ! test -e /usr/bin/ibwarden"
fi

if ((fails > 0)); then
  echo "$fails check(s) failed"
  exit 1
fi
echo "all package checks passed"
