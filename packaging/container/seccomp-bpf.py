#!/usr/bin/python3
"""Compiles a container runtime's seccomp profile (the JSON form Docker,
Podman and containerd read) to a BPF program for x86_64, as the runtime
would load it for a process without capabilities, so that
`bwrap --seccomp FD` can run rypsok under it without a container daemon.

    seccomp-bpf.py PROFILE.json OUT.bpf [--without NAME ...]

`--without` leaves system calls out, to show what an older runtime that
lacked them does (for example the Landlock calls, added to Docker's
default profile in 23.0). Needs Debian's python3-seccomp (libseccomp).
"""

import argparse
import json
import sys

import seccomp

ARCH_NAMES = {"amd64", "x86_64"}
OPS = {
    "SCMP_CMP_NE": seccomp.NE,
    "SCMP_CMP_LT": seccomp.LT,
    "SCMP_CMP_LE": seccomp.LE,
    "SCMP_CMP_EQ": seccomp.EQ,
    "SCMP_CMP_GE": seccomp.GE,
    "SCMP_CMP_GT": seccomp.GT,
    "SCMP_CMP_MASKED_EQ": seccomp.MASKED_EQ,
}


def action(name, errno):
    if name == "SCMP_ACT_ALLOW":
        return seccomp.ALLOW
    if name == "SCMP_ACT_ERRNO":
        return seccomp.ERRNO(errno)
    if name == "SCMP_ACT_KILL":
        return seccomp.KILL
    raise SystemExit(f"unsupported action {name}")


def applies(rule):
    """Whether a rule applies to an x86_64 process with no capabilities."""
    includes = rule.get("includes") or {}
    excludes = rule.get("excludes") or {}
    if includes.get("caps"):
        return False
    arches = includes.get("arches")
    if arches and not ARCH_NAMES & set(arches):
        return False
    if ARCH_NAMES & set(excludes.get("arches") or []):
        return False
    return True


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("profile")
    parser.add_argument("out")
    parser.add_argument("--without", action="append", default=[])
    args = parser.parse_args()
    with open(args.profile, encoding="utf-8") as f:
        profile = json.load(f)
    default_errno = profile.get("defaultErrnoRet", 1)
    filt = seccomp.SyscallFilter(action(profile["defaultAction"], default_errno))
    added = 0
    for rule in profile["syscalls"]:
        if not applies(rule):
            continue
        act = action(rule["action"], rule.get("errnoRet", default_errno))
        conditions = [
            seccomp.Arg(a["index"], OPS[a["op"]], a["value"], a.get("valueTwo", 0))
            if a["op"] == "SCMP_CMP_MASKED_EQ"
            else seccomp.Arg(a["index"], OPS[a["op"]], a["value"])
            for a in rule.get("args") or []
        ]
        for name in rule["names"]:
            if name in args.without:
                continue
            try:
                seccomp.resolve_syscall(seccomp.Arch.NATIVE, name)
            except (ValueError, RuntimeError):
                continue  # not a system call of this architecture
            filt.add_rule(act, name, *conditions)
            added += 1
    with open(args.out, "wb") as out:
        filt.export_bpf(out)
    print(f"{added} rules from {args.profile} -> {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
