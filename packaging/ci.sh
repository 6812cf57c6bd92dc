#!/usr/bin/env bash
# Packaging checks, one step per argument, each run by `.ci/run` as its own
# named step after the tests (as root, on Debian, without a container
# daemon). Each installs what it needs: Debian's packages, and Python and
# Rust tools at pinned versions.
#
#   bash packaging/ci.sh static     # the static release binary, checked static, run from an empty directory
#   bash packaging/ci.sh bwrap      # the image's promise under bubblewrap: check, web_search, web_fetch
#   bash packaging/ci.sh systemd    # the unit's exposure score (<= 2.0)
#   bash packaging/ci.sh deb        # the Debian package: lintian, dpkg -i, run, remove
#   bash packaging/ci.sh manifests  # the Kubernetes example and the compose file against their schemas
#   bash packaging/ci.sh docs       # the book (packaging/docs) built with mdBook
#   bash packaging/ci.sh metrics    # a running rypsok's /metrics read by promtool (Debian's prometheus)
#
# `static` comes first: the others use its binary.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

TARGET=x86_64-unknown-linux-gnu
BIN=$ROOT/target/$TARGET/release/rypsok
CARGO_DEB_VERSION=3.8.0
KUBERNETES_VALIDATE_VERSION=1.37.0
JSONSCHEMA_VERSION=4.25.1
PYYAML_VERSION=6.0.3
# Carries the Compose Specification's JSON schema (compose/config/compose_spec.json);
# installed without its dependencies, only for that file.
DOCKER_COMPOSE_VERSION=1.29.2
# The book's builder, from source without its `serve`, `watch` and `search`
# features (a static build needs none of them).
MDBOOK_VERSION=0.5.4

APT_UPDATED=
need_apt() {
    local missing=()
    for pkg in "$@"; do
        dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
    done
    if [ ${#missing[@]} -gt 0 ]; then
        if [ -z "$APT_UPDATED" ]; then
            apt-get update -qq
            APT_UPDATED=1
        fi
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    fi
}

need_binary() {
    [ -x "$BIN" ] || { echo "run 'bash packaging/ci.sh static' first" >&2; exit 1; }
}

step_static() {
    # glibc with crt-static: DNS goes through hickory, never NSS, so nothing
    # needs glibc's dynamic loading. Built by the README's first install
    # line, `cargo install --locked --path supervisor` (which leaves the
    # test-only probes out), into target/ so that later steps find it.
    RUSTFLAGS="-C target-feature=+crt-static" \
        cargo install --locked --path supervisor --target "$TARGET" \
        --target-dir target --root target/install --force
    cmp "$BIN" target/install/bin/rypsok
    # Static: no program interpreter and no shared library needed.
    if readelf -lW "$BIN" | grep -q 'INTERP'; then
        echo "FAIL: $BIN asks for a program interpreter" >&2; exit 1
    fi
    if readelf -dW "$BIN" | grep -q '(NEEDED)'; then
        echo "FAIL: $BIN needs shared libraries:" >&2
        readelf -dW "$BIN" | grep '(NEEDED)' >&2
        exit 1
    fi
    file "$BIN"
    # From an empty directory, with an empty environment.
    local empty
    empty=$(mktemp -d)
    (cd "$empty" && env -i "$BIN" --version && env -i "$BIN" check)
    rmdir "$empty"
    echo "static binary: $(stat -c %s "$BIN") bytes"
}

# The image's run line (`--read-only --cap-drop ALL --security-opt
# no-new-privileges`, a non-root UID, the runtime's default seccomp
# profile), without a daemon: bubblewrap started by an unprivileged user
# (uid 65534), in new user, mount, PID, IPC, UTS, cgroup and network
# namespaces (loopback only), every capability dropped, a root file system
# made of the binary alone and read-only, a tmpfs on /tmp the only
# writable place, and Docker's default seccomp profile compiled to BPF.
STAGE=
stage() {
    STAGE=$(mktemp -d /tmp/rypsok-sandbox.XXXXXX)
    chmod 0755 "$STAGE"
    install -m 0755 "$BIN" "$STAGE/rypsok"
    /usr/bin/python3 packaging/container/seccomp-bpf.py \
        packaging/container/moby-default-seccomp.json "$STAGE/runtime.bpf"
    /usr/bin/python3 packaging/container/seccomp-bpf.py \
        packaging/container/moby-default-seccomp.json "$STAGE/runtime-pre-23.bpf" \
        --without landlock_create_ruleset --without landlock_add_rule --without landlock_restrict_self
    /usr/bin/python3 packaging/container/seccomp-bpf.py \
        packaging/container/moby-default-seccomp.json "$STAGE/runtime-no-close-range.bpf" \
        --without close_range
    chmod 0644 "$STAGE"/*.bpf
}

# sandboxed PROFILE [bwrap options...] -- COMMAND...
sandboxed() {
    local profile=$1
    shift
    setpriv --reuid=65534 --regid=65534 --clear-groups -- \
        bwrap --unshare-all --unshare-user --die-with-parent --new-session \
        --uid 65534 --gid 65534 --cap-drop ALL \
        --ro-bind "$STAGE/rypsok" /rypsok \
        --proc /proc --dev /dev --tmpfs /tmp \
        --clearenv --setenv PATH / --setenv TMPDIR /tmp --chdir /tmp \
        --seccomp 9 \
        "$@" 9<"$STAGE/$profile"
}

step_bwrap() {
    need_binary
    need_apt bubblewrap python3-seccomp util-linux
    stage
    trap 'rm -rf "$STAGE"' RETURN

    echo "-- rypsok check, as the image runs it"
    local out
    out=$(sandboxed runtime.bpf --remount-ro / -- /rypsok check 2>&1) || {
        echo "$out"; echo "FAIL: check refused the workers" >&2; exit 1; }
    echo "$out"
    for kind in worker-net worker-parse; do
        grep -q "^  $kind: full;" <<<"$out" || {
            echo "FAIL: $kind is not fully confined" >&2; exit 1; }
    done
    grep -q "capabilities dropped true" <<<"$out" || { echo "FAIL: capabilities" >&2; exit 1; }

    echo "-- the same under a runtime whose profile lacks the Landlock calls (Docker before 23.0)"
    out=$(sandboxed runtime-pre-23.bpf --remount-ro / -- /rypsok check 2>&1) || {
        echo "$out"; echo "FAIL: check refused the workers without Landlock" >&2; exit 1; }
    echo "$out"
    grep -q "landlock unavailable" <<<"$out" || {
        echo "FAIL: expected Landlock unavailable" >&2; exit 1; }
    local strict
    strict=$(mktemp -d /tmp/rypsok-config.XXXXXX)
    chmod 0755 "$strict"
    printf 'config_version = 1\n[sandbox]\nrequire_landlock = true\n' >"$strict/rypsok.toml"
    chmod 0644 "$strict/rypsok.toml"
    if out=$(sandboxed runtime-pre-23.bpf --ro-bind "$strict/rypsok.toml" /etc/rypsok/rypsok.toml \
        --remount-ro / -- /rypsok check --config /etc/rypsok/rypsok.toml 2>&1); then
        echo "$out"; echo "FAIL: require_landlock = true accepted workers without Landlock" >&2; exit 1
    fi
    echo "$out"
    grep -q "serve would refuse it: the kernel offers no Landlock and \[sandbox\] require_landlock is true" <<<"$out" || {
        echo "FAIL: expected the require_landlock refusal" >&2; exit 1; }
    rm -rf "$strict"

    echo "-- under a runtime whose profile lacks close_range (Docker profiles before February 2021)"
    if out=$(sandboxed runtime-no-close-range.bpf --remount-ro / -- /rypsok check 2>&1); then
        echo "$out"; echo "FAIL: workers that kept inherited descriptors were accepted" >&2; exit 1
    fi
    echo "$out"
    grep -q "serve would refuse it: the worker could not set no_new_privs, close inherited descriptors" <<<"$out" || {
        echo "FAIL: expected the descriptors refusal" >&2; exit 1; }

    echo "-- web_search and web_fetch through all three processes, inside the sandbox"
    # The black-box tests' own harness (loopback fakes, MCP over stdio) runs
    # inside the same namespaces, so that its fakes share the sandbox's
    # loopback; it needs the system's libraries and the repository read-only.
    local tests
    tests=$(cargo test --locked -p rypsok-tests --test blackbox --no-run --message-format=json 2>/dev/null |
        /usr/bin/python3 -c 'import json,sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["target"]["name"] == "blackbox":
        print(m["executable"])')
    [ -x "$tests" ] || { echo "FAIL: no black-box test binary" >&2; exit 1; }
    install -m 0755 "$tests" "$STAGE/blackbox"
    sandboxed runtime.bpf \
        --ro-bind /usr /usr --symlink usr/lib /lib --symlink usr/lib64 /lib64 --symlink usr/bin /bin \
        --ro-bind "$ROOT" "$ROOT" --ro-bind "$STAGE/blackbox" /opt/blackbox \
        --setenv RYPSOK_BIN /rypsok --remount-ro / -- \
        /opt/blackbox --test-threads 1 --exact \
        search::returns_clean_wikipedia_results_through_every_process \
        fetch::reads_a_plain_text_page_after_robots_txt \
        fetch::reads_the_main_content_of_an_html_page
}

step_systemd() {
    need_apt systemd
    local unit=packaging/systemd/rypsok.service out score
    out=$(systemd-analyze security --offline=true "$unit" 2>&1)
    echo "$out" | grep -v '✓'
    score=$(echo "$out" | sed -n 's/.*Overall exposure level for rypsok.service: \([0-9.]*\).*/\1/p')
    [ -n "$score" ] || { echo "FAIL: no exposure score" >&2; exit 1; }
    echo "exposure: $score (at most 2.0)"
    # --threshold counts in tenths; a score above 2.0 fails.
    systemd-analyze security --offline=true --threshold=20 "$unit" >/dev/null
    # The kernel's second line (REQ-DEP-003): every range rypsok refuses is
    # denied to the unit, and only the resolver stub and the loopback
    # listener are allowed back.
    local deny allow range
    deny=$(sed -n 's/^IPAddressDeny=//p' "$unit")
    allow=$(sed -n 's/^IPAddressAllow=//p' "$unit")
    for range in localhost link-local multicast 10.0.0.0/8 100.64.0.0/10 172.16.0.0/12 192.168.0.0/16 fc00::/7; do
        case " $deny " in *" $range "*) ;; *) echo "FAIL: IPAddressDeny= lacks $range" >&2; exit 1 ;; esac
    done
    [ "$allow" = "127.0.0.53 127.0.0.1 ::1" ] || { echo "FAIL: IPAddressAllow= is '$allow'" >&2; exit 1; }
    echo "IPAddressDeny=$deny"
    echo "IPAddressAllow=$allow"
    if [ -d /run/systemd/system ]; then
        echo "-- started for real with systemd-run under the unit's restrictions"
        systemd-run --wait --pipe --collect -p DynamicUser=yes -p ProtectSystem=strict \
            -p ProtectHome=yes -p PrivateTmp=yes -p PrivateDevices=yes -p NoNewPrivileges=yes \
            -p CapabilityBoundingSet= -p RestrictNamespaces=yes -p MemoryDenyWriteExecute=yes \
            -p "RestrictAddressFamilies=AF_INET AF_INET6 AF_UNIX" \
            -p "SystemCallFilter=@system-service landlock_create_ruleset landlock_add_rule landlock_restrict_self seccomp close_range" \
            -p "SystemCallFilter=~@privileged @resources @mount @debug @module @raw-io @reboot @swap @obsolete @cpu-emulation @clock" \
            "$BIN" check
    else
        echo "systemd is not PID 1 here: the unit is not started; the bwrap step runs the binary under the same restrictions"
    fi
}

step_deb() {
    need_binary
    need_apt lintian dpkg-dev adduser
    if ! cargo deb --version 2>/dev/null | grep -qF "$CARGO_DEB_VERSION"; then
        cargo install cargo-deb --locked --version "$CARGO_DEB_VERSION"
    fi
    # The man page, generated from the command line's definition.
    mkdir -p target/man
    "$BIN" __manpage | gzip -9n >target/man/rypsok.1.gz
    cargo deb --locked --no-build -p rypsok --target "$TARGET" --output target/debian/
    local deb
    deb=$(ls -t target/debian/rypsok_*.deb | head -1)
    echo "package: $deb, $(stat -c %s "$deb") bytes"
    dpkg-deb --info "$deb"
    dpkg-deb --contents "$deb"
    echo "-- lintian (errors fail)"
    lintian --fail-on error --suppress-tags-from-file /dev/null "$deb" || {
        echo "FAIL: lintian reported errors" >&2; exit 1; }
    echo "-- dpkg -i, run, remove"
    dpkg -i "$deb"
    getent passwd rypsok
    test -f /etc/rypsok/rypsok.toml
    test -f /usr/lib/systemd/system/rypsok.service || test -f /lib/systemd/system/rypsok.service
    man -w rypsok >/dev/null 2>&1 || test -f /usr/share/man/man1/rypsok.1.gz
    /usr/bin/rypsok --version
    (cd / && setpriv --reuid=rypsok --regid=rypsok --clear-groups /usr/bin/rypsok check --config /etc/rypsok/rypsok.toml)
    dpkg --purge rypsok
    if [ -e /usr/bin/rypsok ] || [ -e /etc/rypsok/rypsok.toml ]; then
        echo "FAIL: files left after purge" >&2; exit 1
    fi
    echo "installed, ran and purged cleanly"
}

step_manifests() {
    local venv=target/manifests-venv
    if [ ! -x "$venv/bin/kubernetes-validate" ]; then
        python3 -m venv "$venv"
        "$venv/bin/pip" install -q "kubernetes-validate==$KUBERNETES_VALIDATE_VERSION" \
            "jsonschema==$JSONSCHEMA_VERSION" "PyYAML==$PYYAML_VERSION"
        "$venv/bin/pip" install -q --no-deps "docker-compose==$DOCKER_COMPOSE_VERSION"
    fi
    echo "-- Kubernetes example, strict, against the bundled schemas (no network)"
    "$venv/bin/kubernetes-validate" --strict --kubernetes-version 1.33 packaging/kubernetes/rypsok.yaml
    echo "-- compose file against the Compose Specification's schema"
    "$venv/bin/python" - packaging/container/compose.yaml <<'EOF'
import json, pathlib, sys, sysconfig
import jsonschema, yaml
schema_path = pathlib.Path(sysconfig.get_paths()["purelib"]) / "compose/config/compose_spec.json"
schema = json.loads(schema_path.read_text(encoding="utf-8"))
doc = yaml.safe_load(pathlib.Path(sys.argv[1]).read_text(encoding="utf-8"))
validator = jsonschema.Draft201909Validator(schema)  # its $schema names draft 2019-09
errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.path))
for e in errors:
    print(f"{sys.argv[1]}: {'/'.join(map(str, e.path))}: {e.message}")
if errors:
    sys.exit(1)
print(f"{sys.argv[1]}: valid against {schema_path.name}")
EOF
}

step_docs() {
    # The book's examples are not run here: the tests produce and compare
    # them (tests/blackbox/book.rs, and the configuration reference's checks
    # in supervisor/core), in the test step before this one.
    # Installed where cargo installs tools (its bin folder is on PATH), so a
    # machine that has built it once reuses it. --debug: half the build's
    # CPU time (about two and a half minutes), and the book still builds in
    # well under a second.
    if ! mdbook --version 2>/dev/null | grep -qF "v$MDBOOK_VERSION"; then
        cargo install mdbook --locked --version "$MDBOOK_VERSION" --no-default-features --debug
    fi
    local mdbook
    mdbook=$(command -v mdbook || echo "${CARGO_HOME:-$HOME/.cargo}/bin/mdbook")
    "$mdbook" build packaging/docs
    test -s packaging/docs/book/index.html
    test -s packaging/docs/book/reading-a-response.html
    test -s packaging/docs/book/reference/configuration.html
}

step_metrics() {
    # promtool, the Prometheus project's own parser and linter, from the
    # distribution's package; the black-box test scrapes a running rypsok
    # (after a search, a fetch and a refusal) in both text formats and
    # feeds each exposition to `promtool check metrics`. Naming the tool
    # makes its absence a failure rather than a skip.
    need_apt prometheus
    RYPSOK_PROMTOOL=$(command -v promtool) \
        cargo test --locked -p rypsok-tests --test blackbox -- --exact metrics::the_exposition_passes_promtool
}

for step in "$@"; do
    case "$step" in
        static) step_static ;;
        bwrap) step_bwrap ;;
        systemd) step_systemd ;;
        deb) step_deb ;;
        manifests) step_manifests ;;
        docs) step_docs ;;
        metrics) step_metrics ;;
        *) echo "unknown step $step" >&2; exit 2 ;;
    esac
done
