#!/bin/sh
# modgate's installer (docs/operations.md, "Install with install.sh"): picks the package for this machine from
# a signed release, checks SHA256SUMS' minisign signature and the file's sha256 before it changes
# anything, then installs the .deb (apt/dpkg), the .rpm (dnf/yum/rpm) or, where neither fits, the
# bare binary and its systemd units (`modgate service install`). Running it again with the same
# release changes nothing.
#
#   curl -fsSL https://releases.modgate.dev/latest/install.sh | sudo sh
#
# Settings (environment): MODGATE_VERSION pins a release (default: the newest, <base>/latest/);
# MODGATE_BASE_URL the release location (default below; file:// works); MODGATE_INSTALL_METHOD
# deb|rpm|binary overrides the detection; MODGATE_PREFIX installs under that folder instead of /:
# the bare binary and its unit files (inspection, tests; no user, no systemctl), or the .rpm with
# `rpm --root`, its scripts run chrooted there (a scratch root; tests).
#
# Everything is inside one function called on the last line: a download cut short defines at
# most part of the function and runs nothing.

modgate_install() {
  set -eu
  base=${MODGATE_BASE_URL:-@BASE_URL@}
  base=${base%/}
  # The release key (minisign). npm run release writes the key it signs with here.
  pubkey='@PUBLIC_KEY@'
  prefix=${MODGATE_PREFIX:-}
  if [ -n "${MODGATE_VERSION:-}" ]; then
    dir="$base/v${MODGATE_VERSION#v}"
  else
    dir="$base/latest"
  fi

  case $(uname -m) in
    x86_64 | amd64) arch=x64 deb_arch=amd64 rpm_arch=x86_64 ;;
    aarch64 | arm64) arch=arm64 deb_arch=arm64 rpm_arch=aarch64 ;;
    *) fail "no modgate release for the $(uname -m) architecture" ;;
  esac
  method=${MODGATE_INSTALL_METHOD:-$(detect_method)}
  if [ -n "$prefix" ] && [ "$method" = deb ]; then
    fail "MODGATE_PREFIX installs the bare binary or the .rpm only: set MODGATE_INSTALL_METHOD=binary or rpm too"
  fi
  if [ -z "$prefix" ] && [ "$(id -u)" != 0 ]; then
    fail "run it as root (sudo sh), or set MODGATE_PREFIX to install into a folder"
  fi

  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  download "$dir/SHA256SUMS" "$tmp/SHA256SUMS"
  download "$dir/SHA256SUMS.minisig" "$tmp/SHA256SUMS.minisig"
  verify_signature "$tmp/SHA256SUMS" "$tmp/SHA256SUMS.minisig"
  version=$(sed -n 's/^trusted comment: modgate \([^ ]*\) .*/\1/p' "$tmp/SHA256SUMS.minisig")
  [ -n "$version" ] || fail "the signed comment names no version"
  # The packages' version: '-' (a pre-release) is '~' for dpkg and rpm (scripts/packages.ts).
  pkg_version=$(printf '%s' "$version" | tr '-' '~')

  case $method in
    deb) artifact=$(listed "modgate_${pkg_version}_${deb_arch}.deb") ;;
    rpm) artifact=$(listed "modgate-${pkg_version}-1.${rpm_arch}.rpm") ;;
    binary) artifact=$(listed "modgate-linux-${arch}") ;;
    *) fail "MODGATE_INSTALL_METHOD must be deb, rpm or binary, not $method" ;;
  esac
  if already_installed; then
    say "modgate $version is already installed ($method): nothing to do."
    return 0
  fi
  download "$dir/$artifact" "$tmp/$artifact"
  verify_checksum "$artifact"
  say "verified $artifact (modgate $version): signature and sha256"
  install_"$method" "$tmp/$artifact"
}

say() { printf 'modgate install: %s\n' "$*"; }
fail() {
  printf 'modgate install: %s\n' "$*" >&2
  exit 1
}

detect_method() {
  if command -v dpkg >/dev/null 2>&1; then
    echo deb
  elif command -v rpm >/dev/null 2>&1 && { command -v dnf || command -v yum; } >/dev/null 2>&1; then
    echo rpm
  else
    echo binary
  fi
}

download() {
  if command -v curl >/dev/null 2>&1; then
    curl -fsSL --proto '=https,file' -o "$2" "$1" || fail "could not download $1"
  elif command -v wget >/dev/null 2>&1; then
    wget -q -O "$2" "$1" || fail "could not download $1"
  else
    fail "needs curl or wget"
  fi
}

# The name as SHA256SUMS lists it, or a failure: only what the signed list names is installed.
listed() {
  grep -q " [ *]$1\$" "$tmp/SHA256SUMS" || fail "the release $version has no $1"
  echo "$1"
}

sha256_of() {
  if command -v sha256sum >/dev/null 2>&1; then
    sha256sum "$1" | cut -d ' ' -f 1
  else
    openssl dgst -sha256 -r "$1" | cut -d ' ' -f 1
  fi
}

verify_checksum() {
  expected=$(grep " [ *]$1\$" "$tmp/SHA256SUMS" | cut -d ' ' -f 1)
  actual=$(sha256_of "$tmp/$1")
  [ "$expected" = "$actual" ] || fail "$1 does not match SHA256SUMS (sha256 $actual, signed $expected); nothing was installed"
}

# minisign if installed; else OpenSSL (1.1.1 or newer), which checks the same Ed25519 signatures.
# Never the downloaded modgate itself: a forged binary would vouch for itself.
verify_signature() {
  if command -v minisign >/dev/null 2>&1; then
    minisign -V -q -m "$1" -x "$2" -P "$pubkey" >/dev/null 2>&1 ||
      fail "SHA256SUMS: bad signature (minisign); nothing was installed"
  elif command -v openssl >/dev/null 2>&1; then
    verify_with_openssl "$1" "$2" || fail "SHA256SUMS: bad signature (openssl); nothing was installed"
  else
    fail "needs minisign or openssl to check the release's signature (apt install minisign, or openssl)"
  fi
}

# minisign's prehashed format: line 2 is "ED" + key id (8) + Ed25519(BLAKE2b-512(file)) (64);
# line 4 is Ed25519(that signature + the trusted comment). Both must verify with the release key.
verify_with_openssl() {
  v="$tmp/openssl"
  mkdir "$v"
  printf '%s' "$pubkey" | base64 -d >"$v/key" 2>/dev/null || return 1
  sed -n 2p "$2" | base64 -d >"$v/sig" 2>/dev/null || return 1
  sed -n 4p "$2" | base64 -d >"$v/global" 2>/dev/null || return 1
  [ "$(wc -c <"$v/key")" -eq 42 ] && [ "$(wc -c <"$v/sig")" -eq 74 ] || return 1
  [ "$(dd if="$v/sig" bs=1 count=2 2>/dev/null)" = ED ] || return 1
  [ "$(od -An -tx1 -j2 -N8 "$v/sig")" = "$(od -An -tx1 -j2 -N8 "$v/key")" ] || return 1
  # The key as DER SubjectPublicKeyInfo: the Ed25519 prefix, then the 32 key bytes.
  { printf '\060\052\060\005\006\003\053\145\160\003\041\000' && dd if="$v/key" bs=1 skip=10 2>/dev/null; } >"$v/key.der"
  openssl pkey -pubin -inform DER -in "$v/key.der" -out "$v/key.pem" 2>/dev/null || return 1
  dd if="$v/sig" bs=1 skip=10 of="$v/sig64" 2>/dev/null
  openssl dgst -blake2b512 -binary "$1" >"$v/prehash" || return 1
  openssl pkeyutl -verify -pubin -inkey "$v/key.pem" -rawin -in "$v/prehash" -sigfile "$v/sig64" >/dev/null 2>&1 || return 1
  { cat "$v/sig64" && sed -n '3s/^trusted comment: //p' "$2" | tr -d '\n'; } >"$v/signed"
  openssl pkeyutl -verify -pubin -inkey "$v/key.pem" -rawin -in "$v/signed" -sigfile "$v/global" >/dev/null 2>&1
}

already_installed() {
  case $method in
    # Installed, not only known: a removed package keeps its version while its conffiles remain.
    deb) [ "$(dpkg-query -W -f '${db:Status-Status} ${Version}' modgate 2>/dev/null || true)" = "installed $pkg_version" ] ;;
    rpm) [ "$(rpm ${prefix:+--root "$prefix"} -q --qf '%{VERSION}' modgate 2>/dev/null || true)" = "$pkg_version" ] ;;
    binary)
      [ -f "$prefix/usr/local/bin/modgate" ] &&
        [ "$(sha256_of "$prefix/usr/local/bin/modgate")" = "$(grep " [ *]$artifact\$" "$tmp/SHA256SUMS" | cut -d ' ' -f 1)" ]
      ;;
  esac
}

# apt-get waits for a lock another apt holds (unattended-upgrades on a fresh host) instead of failing.
install_deb() {
  if command -v apt-get >/dev/null 2>&1; then
    apt-get install -y -o DPkg::Lock::Timeout=300 "$1"
  else
    dpkg -i "$1"
  fi
}

# Into a scratch root (MODGATE_PREFIX) with rpm itself: dnf and yum would want that root's repositories.
install_rpm() {
  if [ -n "$prefix" ]; then
    rpm --root "$prefix" -U "$1"
  elif command -v dnf >/dev/null 2>&1; then
    dnf install -y "$1"
  elif command -v yum >/dev/null 2>&1; then
    yum install -y "$1"
  else
    rpm -U "$1"
  fi
}

# The binary beside its final name, then renamed over it (never half a binary in place); then
# the units, the user and the data dir by the binary's own `modgate service install`.
install_binary() {
  bin="$prefix/usr/local/bin"
  mkdir -p "$bin"
  cp "$1" "$bin/.modgate.new"
  chmod 0755 "$bin/.modgate.new"
  mv -f "$bin/.modgate.new" "$bin/modgate"
  if [ -n "$prefix" ]; then
    "$bin/modgate" service install --units-only --unit-dir "$prefix/etc/systemd/system" --bin /usr/local/bin/modgate
  else
    "$bin/modgate" service install
  fi
  say "installed $bin/modgate ($version); modgate self-update keeps it up to date"
}

modgate_install "$@"
